/** Chat `finish_reason` ⇄ the canonical finish reason (PROTOCOLS.md section 3). */
import { assertNever } from '../../ir/assert-never';
import type { FinishReason, UnifiedFinishReason } from '../../ir/finish-reason';

/** `sawToolCall`: some compat vendors say `stop` after tool calls; the calls decide. */
export function mapChatFinishReason(raw: string | null | undefined, sawToolCall: boolean): FinishReason {
  const value = raw ?? null;
  let unified: UnifiedFinishReason;
  switch (value) {
    case 'stop':
    case 'end_turn':
    case 'eos':
      unified = 'stop';
      break;
    case 'length':
    case 'max_tokens':
      unified = 'length';
      break;
    case 'tool_calls':
    case 'function_call':
    case 'tool_use':
      unified = 'tool_calls';
      break;
    case 'content_filter':
    case 'sensitive':
      unified = 'content_filter';
      break;
    case 'model_context_window_exceeded':
      unified = 'context_exceeded';
      break;
    case 'insufficient_system_resource':
    case 'error':
      unified = 'error';
      break;
    default:
      unified = 'other';
  }
  if (sawToolCall && (unified === 'stop' || unified === 'other')) unified = 'tool_calls';
  return { unified, raw: value };
}

/**
 * The value a Chat client sees. `error` has no finish_reason in Chat: callers render an error
 * (frame or envelope) instead. Tool calls win over a plain stop, whatever the upstream said.
 */
export function toChatFinishReason(unified: Exclude<UnifiedFinishReason, 'error'>, sawToolCall: boolean): string {
  switch (unified) {
    case 'stop':
    case 'stop_sequence':
    case 'pause':
    case 'other':
      return sawToolCall ? 'tool_calls' : 'stop';
    case 'length':
    case 'context_exceeded':
      return 'length';
    case 'tool_calls':
      return 'tool_calls';
    case 'content_filter':
      return 'content_filter';
    default:
      return assertNever(unified, 'finish reason');
  }
}
