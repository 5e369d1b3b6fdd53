import type { FinishReason, UnifiedFinishReason } from '../../ir/finish-reason';

const CONTENT_FILTER = new Set([
  'SAFETY',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'RECITATION',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

const ERROR = new Set([
  'MALFORMED_FUNCTION_CALL',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
  'MISSING_THOUGHT_SIGNATURE',
  'MALFORMED_RESPONSE',
]);

/**
 * Upstream `finishReason` → IR. Generate-Content says `STOP` even when the answer is tool calls,
 * so the caller tells whether any `functionCall` was seen across all chunks.
 */
export function mapGenerateContentFinishReason(raw: string | null | undefined, sawToolCall: boolean): FinishReason {
  return { unified: unifiedFor(raw ?? null, sawToolCall), raw: raw ?? null };
}

function unifiedFor(raw: string | null, sawToolCall: boolean): UnifiedFinishReason {
  if (raw === null) return sawToolCall ? 'tool_calls' : 'other';
  if (raw === 'STOP') return sawToolCall ? 'tool_calls' : 'stop';
  if (raw === 'MAX_TOKENS') return 'length';
  if (CONTENT_FILTER.has(raw)) return 'content_filter';
  if (ERROR.has(raw)) return 'error';
  if (raw === 'CONTINUATION') return 'pause'; // a checkpoint: the answer goes on in another request
  return 'other';
}
