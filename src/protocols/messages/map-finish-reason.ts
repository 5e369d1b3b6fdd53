/** Messages `stop_reason` ⇄ the canonical finish reason (PROTOCOLS.md section 3). */
import { assertNever } from '../../ir/assert-never';
import type { FinishReason, UnifiedFinishReason } from '../../ir/finish-reason';

const FROM_MESSAGES: Record<string, UnifiedFinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_calls',
  max_tokens: 'length',
  refusal: 'content_filter',
  pause_turn: 'pause',
  model_context_window_exceeded: 'context_exceeded',
};

export function mapMessagesFinishReason(stopReason: string | null | undefined, stopSequence?: string | null): FinishReason {
  const raw = stopReason ?? null;
  const unified = raw === null ? 'other' : (FROM_MESSAGES[raw] ?? 'other');
  const finish: FinishReason = { unified, raw };
  if (unified === 'stop_sequence' && typeof stopSequence === 'string') finish.stopSequence = stopSequence;
  return finish;
}

export interface MessagesStopReason {
  stopReason: string;
  stopSequence: string | null;
}

export function toMessagesStopReason(finish: FinishReason): MessagesStopReason {
  const unified = finish.unified;
  switch (unified) {
    case 'stop':
      return { stopReason: 'end_turn', stopSequence: null };
    case 'stop_sequence':
      return { stopReason: 'stop_sequence', stopSequence: finish.stopSequence ?? null };
    case 'length':
      return { stopReason: 'max_tokens', stopSequence: null };
    case 'tool_calls':
      return { stopReason: 'tool_use', stopSequence: null };
    case 'content_filter':
      return { stopReason: 'refusal', stopSequence: null };
    case 'pause':
      return { stopReason: 'pause_turn', stopSequence: null };
    case 'context_exceeded':
      return { stopReason: 'model_context_window_exceeded', stopSequence: null };
    // A completed answer has no Messages value for these: the answer itself ended normally.
    case 'error':
    case 'other':
      return { stopReason: 'end_turn', stopSequence: null };
    default:
      return assertNever(unified, 'finish reason');
  }
}
