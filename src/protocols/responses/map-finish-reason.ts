/**
 * Responses `status` + `incomplete_details.reason` ⇄ the unified finish reason. Responses has no
 * tool-call status: a completed answer holding a function call is `tool_calls`.
 */
import { assertNever } from '../../ir/assert-never';
import type { FinishReason } from '../../ir/finish-reason';

export function mapResponsesFinishReason(
  status: string | null | undefined,
  incompleteReason: string | null | undefined,
  sawToolCall: boolean,
): FinishReason {
  switch (status) {
    case 'completed':
      return { unified: sawToolCall ? 'tool_calls' : 'stop', raw: status };
    case 'incomplete':
      if (incompleteReason === 'max_output_tokens') return { unified: 'length', raw: incompleteReason };
      if (incompleteReason === 'content_filter') return { unified: 'content_filter', raw: incompleteReason };
      return { unified: 'other', raw: incompleteReason ?? status };
    case 'failed':
    case 'cancelled':
      return { unified: 'error', raw: status };
    default:
      return { unified: 'other', raw: status ?? null };
  }
}

export type ResponsesTerminalStatus = 'completed' | 'incomplete' | 'failed';

export interface ResponsesStatus {
  status: ResponsesTerminalStatus;
  incompleteReason: 'max_output_tokens' | 'content_filter' | null;
}

/** The client-facing status for a finish reason. */
export function responsesStatusFor(finish: FinishReason): ResponsesStatus {
  switch (finish.unified) {
    case 'stop':
    case 'stop_sequence':
    case 'tool_calls':
    case 'pause':
    case 'other':
      return { status: 'completed', incompleteReason: null };
    case 'length':
    case 'context_exceeded':
      return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
    case 'content_filter':
      return { status: 'incomplete', incompleteReason: 'content_filter' };
    case 'error':
      return { status: 'failed', incompleteReason: null };
    default:
      return assertNever(finish.unified, 'finish reason');
  }
}
