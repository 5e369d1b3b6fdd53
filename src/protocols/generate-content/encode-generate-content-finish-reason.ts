import { assertNever } from '../../ir/assert-never';
import type { FinishReason } from '../../ir/finish-reason';
import { mapGenerateContentFinishReason } from './map-generate-content-finish-reason';

/** IR → the `finishReason` a Generate-Content client sees. */
export function encodeGenerateContentFinishReason(finish: FinishReason): string {
  // An answer that came from a Generate-Content upstream keeps its precise value (RECITATION,
  // MALFORMED_FUNCTION_CALL, …) when that value means the same thing.
  if (finish.raw !== null && /^[A-Z_]+$/.test(finish.raw)) {
    const sawToolCall = finish.unified === 'tool_calls';
    if (mapGenerateContentFinishReason(finish.raw, sawToolCall).unified === finish.unified) return finish.raw;
  }
  switch (finish.unified) {
    case 'stop':
    case 'stop_sequence':
    case 'tool_calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    case 'error': // a failed answer reaches the client as an error frame; this is only a fallback
    case 'pause':
    case 'context_exceeded':
    case 'other':
      return 'OTHER';
    default:
      return assertNever(finish.unified, 'finish reason');
  }
}
