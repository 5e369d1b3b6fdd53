export type UnifiedFinishReason =
  'stop' | 'stop_sequence' | 'length' | 'tool_calls' | 'content_filter' | 'pause' | 'context_exceeded' | 'error' | 'other';

/** The canonical reason plus the upstream's own value, kept for logs and pass-through. */
export interface FinishReason {
  unified: UnifiedFinishReason;
  raw: string | null;
  /** The stop sequence that matched, when `unified` is `stop_sequence`. */
  stopSequence?: string;
}
