/**
 * Metering of the native pass-through path: the body or SSE stream goes to the client untouched
 * while this reads the usage and finish reason from it. A stream without a terminal event, an
 * `error` event, `response.failed` or an error body count as errors (not billed).
 */
import type { FinishReason } from '../../ir/finish-reason';
import { ZERO_USAGE, type Usage } from '../../ir/usage';
import { SseParser } from '../shared/sse-parser';
import { UsageTally } from '../../ir/usage-tally';
import { isRecord, parseJson } from '../shared/read-json';
import type { PassThroughMeter } from '../codec';
import { convertResponsesUsage } from './convert-usage';
import { mapResponsesFinishReason } from './map-finish-reason';
import { responseBodySchema } from './response-schema';

interface Reading {
  usage: Usage;
  finish: FinishReason | null;
  error: boolean;
}

/** Function calls and custom (freeform) tool calls alike end a turn with tool use. */
function isToolCall(item: unknown): boolean {
  const type = item !== null && typeof item === 'object' ? (item as { type?: unknown }).type : undefined;
  return type === 'function_call' || type === 'custom_tool_call';
}

function hasFunctionCall(output: unknown[] | null | undefined): boolean {
  return (output ?? []).some(isToolCall);
}

/** Reads a terminal response object (`response.completed` / `.incomplete`, or a whole body). */
function readResponse(response: unknown, sawToolCall: boolean): Reading {
  const parsed = responseBodySchema.safeParse(response);
  if (!parsed.success) return { usage: ZERO_USAGE, finish: null, error: true };
  const body = parsed.data;
  const finish = mapResponsesFinishReason(body.status, body.incomplete_details?.reason, sawToolCall || hasFunctionCall(body.output));
  return { usage: convertResponsesUsage(body.usage), finish, error: finish.unified === 'error' };
}

/** Deltas that carry output (answer, reasoning, refusal, tool arguments or input): counted for an abandoned stream. */
const OUTPUT_DELTAS: ReadonlySet<string> = new Set([
  'response.output_text.delta',
  'response.reasoning_text.delta',
  'response.reasoning_summary_text.delta',
  'response.refusal.delta',
  'response.function_call_arguments.delta',
  'response.custom_tool_call_input.delta',
]);

class StreamMeter implements PassThroughMeter {
  private readonly parser = new SseParser();
  private readonly tally = new UsageTally();
  private reading: Reading | undefined;
  private errored = false;
  private sawToolCall = false;

  push(chunk: string): void {
    for (const frame of this.parser.push(chunk)) this.frame(frame.data);
  }

  failed(): boolean {
    return this.errored;
  }

  untilAbort(inputEstimate: number): Usage {
    return this.tally.untilAbort(inputEstimate);
  }

  end(): Reading {
    for (const frame of this.parser.end()) this.frame(frame.data);
    if (this.reading === undefined) return { usage: ZERO_USAGE, finish: null, error: true };
    return { ...this.reading, error: this.errored || this.reading.error };
  }

  private frame(data: string): void {
    const event = parseJson(data);
    if (!isRecord(event)) return;
    const { type, item, response, delta } = event;
    if (typeof type === 'string' && OUTPUT_DELTAS.has(type)) {
      if (typeof delta === 'string') this.tally.count(delta);
      return;
    }
    switch (type) {
      case 'response.output_item.added':
      case 'response.output_item.done':
        if (isToolCall(item)) this.sawToolCall = true;
        break;
      case 'response.completed':
      case 'response.incomplete':
        this.reading = readResponse(response, this.sawToolCall);
        this.tally.report(this.reading.usage, true);
        break;
      case 'response.failed':
        this.errored = true;
        this.reading = { ...readResponse(response, this.sawToolCall), error: true };
        break;
      case 'error':
        this.errored = true;
        break;
      default:
        break;
    }
  }
}

class BodyMeter implements PassThroughMeter {
  private body = '';

  push(chunk: string): void {
    this.body += chunk;
  }

  failed(): boolean {
    return false;
  }

  untilAbort(): Usage {
    return ZERO_USAGE;
  }

  end(): Reading {
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.body);
    } catch {
      return { usage: ZERO_USAGE, finish: null, error: true };
    }
    if (
      parsed !== null &&
      typeof parsed === 'object' &&
      (parsed as { object?: unknown }).object !== 'response' &&
      (parsed as { error?: unknown }).error
    ) {
      return { usage: ZERO_USAGE, finish: null, error: true };
    }
    return readResponse(parsed, false);
  }
}

export function createResponsesPassThroughMeter(stream: boolean): PassThroughMeter {
  return stream ? new StreamMeter() : new BodyMeter();
}
