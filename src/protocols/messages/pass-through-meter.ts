/**
 * Reads usage and finish reason from a Messages answer passing through untouched (inbound protocol
 * = upstream protocol). Only the frames that carry them are parsed: deltas are skipped unread.
 */
import type { FinishReason } from '../../ir/finish-reason';
import type { Usage } from '../../ir/usage';
import type { PassThroughMeter } from '../codec';
import { SseParser } from '../shared/sse-parser';
import { convertMessagesUsage, mergeMessagesUsage } from './convert-usage';
import { mapMessagesFinishReason } from './map-finish-reason';
import { isRecord, parseJson, readRecord, readString, type JsonRecord } from './read-json';

const METERED_EVENTS: ReadonlySet<string> = new Set(['message_start', 'message_delta', 'message_stop', 'error']);

export class MessagesPassThroughMeter implements PassThroughMeter {
  private readonly parser: SseParser | undefined;
  private body = '';
  private usage: JsonRecord = {};
  private finish: FinishReason | null = null;
  private stopped = false;
  private failed = false;

  constructor(stream: boolean) {
    this.parser = stream ? new SseParser() : undefined;
  }

  push(chunk: string): void {
    if (this.parser === undefined) this.body += chunk;
    else for (const frame of this.parser.push(chunk)) this.frame(frame.event, frame.data);
  }

  end(): { usage: Usage; finish: FinishReason | null; error: boolean } {
    if (this.parser === undefined) return this.endBody();
    for (const frame of this.parser.end()) this.frame(frame.event, frame.data);
    return { usage: convertMessagesUsage(this.usage), finish: this.finish, error: this.failed || !this.stopped };
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
    if (this.stopped || this.failed) return;
    if (event !== undefined && !METERED_EVENTS.has(event)) return;
    const payload = parseJson(data);
    if (!isRecord(payload)) return;
    switch (event ?? readString(payload, 'type')) {
      case 'message_start':
        this.usage = mergeMessagesUsage({}, readRecord(payload, 'message')?.usage);
        return;
      case 'message_delta': {
        this.usage = mergeMessagesUsage(this.usage, payload.usage);
        const delta = readRecord(payload, 'delta') ?? {};
        const stopReason = readString(delta, 'stop_reason');
        if (stopReason !== undefined) this.finish = mapMessagesFinishReason(stopReason, readString(delta, 'stop_sequence'));
        return;
      }
      case 'message_stop':
        this.stopped = true;
        return;
      case 'error':
        this.failed = true;
        return;
      default:
        return;
    }
  }
}

export function createMessagesPassThroughMeter(stream: boolean): PassThroughMeter {
  return new MessagesPassThroughMeter(stream);
}
