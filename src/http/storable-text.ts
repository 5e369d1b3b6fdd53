/**
 * What text the gateway accepts (docs/reliability.md, "Text the gateway stores"). PostgreSQL text and
 * jsonb cannot hold U+0000, and UTF-8 cannot hold an unpaired UTF-16 surrogate (JSON `"\ud800"`).
 * - Identifiers and names the gateway stores or looks up (key names, emails, filters such as
 *   `?model=`): such text is refused with a 400 naming the field (`isStorableText` in the schemas).
 * - Conversation text (prompts, messages, stored Responses conversations): NUL is legal JSON and
 *   legal in a prompt, so it is forwarded upstream unchanged and only the stored copy has each U+0000
 *   and each unpaired surrogate replaced by U+FFFD (`storableJson`).
 */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const UNSTORABLE_ALL = new RegExp(UNSTORABLE.source, 'g');

export const UNSTORABLE_TEXT_MESSAGE = 'must not contain U+0000 or unpaired UTF-16 surrogates';

export function isStorableText(value: string): boolean {
  return !UNSTORABLE.test(value);
}

/** `value` with U+0000 and unpaired surrogates replaced by U+FFFD. */
export function toStorableText(value: string): string {
  return isStorableText(value) ? value : value.replace(UNSTORABLE_ALL, '\uFFFD');
}

function storableKeys(value: Record<string, unknown>): Record<string, unknown> {
  if (Object.keys(value).every(isStorableText)) return value;
  return Object.fromEntries(Object.entries(value).map(([key, entry]) => [toStorableText(key), entry]));
}

/** JSON text PostgreSQL can store as json/jsonb: every string value and key made storable. */
export function storableJson(value: unknown): string {
  return JSON.stringify(value, (_key, entry: unknown) => {
    if (typeof entry === 'string') return toStorableText(entry);
    if (typeof entry === 'object' && entry !== null && !Array.isArray(entry)) return storableKeys(entry as Record<string, unknown>);
    return entry;
  });
}
