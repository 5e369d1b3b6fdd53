/**
 * Reads usage and finish reason from a Messages answer passing through untouched (inbound protocol
 * = upstream protocol), and counts the streamed output for billing an abandoned stream. Only the
 * frames that carry them are parsed (plain JSON, no schema); pings and block starts and stops are skipped unread.
 */
import type { FinishReason } from '../../ir/finish-reason';
import type { Usage } from '../../ir/usage';
import type { PassThroughMeter } from '../codec';
import { SseParser } from '../shared/sse-parser';
import { convertMessagesUsage, mergeMessagesUsage } from './convert-usage';
import { mapMessagesFinishReason } from './map-finish-reason';
import { isRecord, parseJson, readRecord, readString, type JsonRecord } from '../shared/read-json';
import { UsageTally } from '../../ir/usage-tally';

const METERED_EVENTS: ReadonlySet<string> = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'message_delta',
  'message_stop',
  'error',
]);
/**
 * The delta fields that carry output (answer, thinking, tool input); signatures and citations are not
 * output, nor is the input of the provider's own server tools (as the stream decoder counts them).
 */
const OUTPUT_FIELDS = ['text', 'thinking', 'partial_json'] as const;

export class MessagesPassThroughMeter implements PassThroughMeter {
  private readonly parser: SseParser | undefined;
  private body = '';
  private usage: JsonRecord = {};
  private readonly tally = new UsageTally();
  /** Blocks whose deltas are not counted (server tool calls), by index. */
  private readonly uncounted = new Set<number>();
  private finish: FinishReason | null = null;
  private stopped = false;
  private errorSeen = false;

  constructor(stream: boolean) {
    this.parser = stream ? new SseParser() : undefined;
  }

  push(chunk: string): void {
    if (this.parser === undefined) this.body += chunk;
    else for (const frame of this.parser.push(chunk)) this.frame(frame.event, frame.data);
  }

  failed(): boolean {
    return this.errorSeen;
  }

  untilAbort(inputEstimate: number): Usage {
    return this.tally.untilAbort(inputEstimate);
  }

  end(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    if (this.parser === undefined) return this.endBody();
    for (const frame of this.parser.end()) this.frame(frame.event, frame.data);
    return { usage: convertMessagesUsage(this.usage), finish: this.finish, error: this.errorSeen || !this.stopped };
  }

  private endBody(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    const body = parseJson(this.body);
    if (!isRecord(body) || readString(body, 'type') === 'error') {
      return { usage: convertMessagesUsage(undefined), finish: null, error: true };
    }
    return {
      usage: convertMessagesUsage(body.usage),
      finish: mapMessagesFinishReason(readString(body, 'stop_reason'), readString(body, 'stop_sequence')),
      error: false,
    };
  }

  private frame(event: string | undefined, data: string): void {
    if (this.stopped || this.errorSeen) return;
    if (event !== undefined && !METERED_EVENTS.has(event)) return;
    const payload = parseJson(data);
    if (!isRecord(payload)) return;
    switch (event ?? readString(payload, 'type')) {
      case 'message_start':
        this.usage = mergeMessagesUsage({}, readRecord(payload, 'message')?.usage);
        this.tally.report(convertMessagesUsage(this.usage), false);
        return;
      case 'content_block_start': {
        const type = readString(readRecord(payload, 'content_block') ?? {}, 'type');
        if (type !== undefined && type !== 'text' && type !== 'thinking' && type !== 'tool_use') this.uncounted.add(Number(payload.index));
        return;
      }
      case 'content_block_delta': {
        if (this.uncounted.has(Number(payload.index))) return;
        const delta = readRecord(payload, 'delta') ?? {};
        for (const field of OUTPUT_FIELDS) {
          const text = readString(delta, field);
          if (text !== undefined) this.tally.count(text);
        }
        return;
      }
      case 'message_delta': {
        this.usage = mergeMessagesUsage(this.usage, payload.usage);
        this.tally.report(convertMessagesUsage(this.usage), true);
        const delta = readRecord(payload, 'delta') ?? {};
        const stopReason = readString(delta, 'stop_reason');
        if (stopReason !== undefined) this.finish = mapMessagesFinishReason(stopReason, readString(delta, 'stop_sequence'));
        return;
      }
      case 'message_stop':
        this.stopped = true;
        return;
      case 'error':
        this.errorSeen = true;
        return;
      default:
        return;
    }
  }
}

export function createMessagesPassThroughMeter(stream: boolean): PassThroughMeter {
  return new MessagesPassThroughMeter(stream);
}
