/** Something that could not cross from one protocol to another; reported, never silently dropped. */
export interface TranslationWarning {
  /** Dotted path of the field in the source shape, e.g. `seed` or `messages[2].content[0].cache_control`. */
  field: string;
  message: string;
}
