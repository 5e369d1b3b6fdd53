/**
 * Messages provider SSE (text split anywhere) → IR stream events, as a per-request state machine.
 * Server-tool and other native blocks are held until their `content_block_stop` (the IR carries a
 * native block whole); the forced structured-output tool streams as text; a stream that ends
 * before `message_stop` (or an `event: error`) yields an `error` event, never a clean finish.
 */
import { GatewayError } from '../../errors/gateway-error';
import type { IrStreamEvent } from '../../ir/stream-event';
import type { StreamDecoder, UpstreamDecodeContext } from '../codec';
import { SseParser, type SseEvent } from '../shared/sse-parser';
import { restoreToolName } from '../shared/tool-names';
import { convertMessagesUsage, mergeMessagesUsage } from './convert-usage';
import { decodeMessagesStreamError } from './decode-error';
import { finishForJsonTool } from './decode-response';
import { mapMessagesFinishReason } from './map-finish-reason';
import { isRecord, parseJson, readNumber, readRecord, readString, type JsonRecord } from '../shared/read-json';

/** An upstream block being received, keyed by the upstream's index. */
type Receiving =
  | { kind: 'text'; irIndex: number }
  | { kind: 'reasoning'; irIndex: number }
  | { kind: 'tool_call'; irIndex: number; argumentsSeen: boolean; startInput: string }
  | { kind: 'json_tool'; irIndex: number; textSeen: boolean }
  | { kind: 'native'; block: JsonRecord; inputJson: string };

export class MessagesStreamDecoder implements StreamDecoder {
  private readonly parser = new SseParser();
  private readonly blocks = new Map<number, Receiving>();
  private nextIndex = 0;
  private started = false;
  private done = false;
  private jsonToolUsed = false;
  private usage: JsonRecord = {};

  constructor(private readonly context: UpstreamDecodeContext) {}

  push(chunk: string): IrStreamEvent[] {
    return this.handle(this.parser.push(chunk));
  }

  end(): IrStreamEvent[] {
    const events = this.handle(this.parser.end());
    if (!this.done) {
      this.done = true;
      events.push({ type: 'error', error: new GatewayError('upstream_error', 'the upstream stream ended before message_stop') });
    }
    return events;
  }

  private handle(frames: SseEvent[]): IrStreamEvent[] {
    const events: IrStreamEvent[] = [];
    for (const frame of frames) {
      if (this.done) break;
      this.frame(frame, events);
    }
    return events;
  }

  private fail(error: GatewayError, events: IrStreamEvent[]): void {
    this.done = true;
    events.push({ type: 'error', error });
  }

  private frame(frame: SseEvent, events: IrStreamEvent[]): void {
    if (frame.event === 'ping') return;
    const data = parseJson(frame.data);
    if (!isRecord(data)) {
      this.fail(
        new GatewayError('upstream_error', 'the upstream stream sent an unreadable frame', { upstream: { status: 200, body: frame.data } }),
        events,
      );
      return;
    }
    const type = frame.event ?? readString(data, 'type');
    switch (type) {
      case 'message_start': {
        const message = readRecord(data, 'message') ?? {};
        this.usage = mergeMessagesUsage({}, message.usage);
        this.started = true;
        events.push({
          type: 'start',
          id: readString(message, 'id') ?? this.context.newId('msg_'),
          model: readString(message, 'model') ?? '',
          usage: convertMessagesUsage(this.usage),
        });
        return;
      }
      case 'content_block_start':
        this.ensureStarted(events);
        this.blockStart(readNumber(data, 'index') ?? this.blocks.size, readRecord(data, 'content_block') ?? {}, events);
        return;
      case 'content_block_delta':
        this.blockDelta(readNumber(data, 'index') ?? -1, readRecord(data, 'delta') ?? {}, events);
        return;
      case 'content_block_stop':
        this.blockStop(readNumber(data, 'index') ?? -1, events);
        return;
      case 'message_delta':
        this.ensureStarted(events);
        this.messageDelta(data, events);
        return;
      case 'message_stop':
        this.done = true;
        return;
      case 'error':
        this.fail(decodeMessagesStreamError(data), events);
        return;
      default:
        return; // Unknown event types are future additions: skipped, as the official SDK does.
    }
  }

  private ensureStarted(events: IrStreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    events.push({ type: 'start', id: this.context.newId('msg_'), model: '' });
  }

  private blockStart(upstreamIndex: number, block: JsonRecord, events: IrStreamEvent[]): void {
    const type = readString(block, 'type');
    switch (type) {
      case 'text': {
        const irIndex = this.nextIndex++;
        this.blocks.set(upstreamIndex, { kind: 'text', irIndex });
        events.push({ type: 'block_start', index: irIndex, block: { kind: 'text' } });
        const text = readString(block, 'text') ?? '';
        if (text !== '') events.push({ type: 'text_delta', index: irIndex, text });
        return;
      }
      case 'thinking':
      case 'redacted_thinking': {
        const irIndex = this.nextIndex++;
        this.blocks.set(upstreamIndex, { kind: 'reasoning', irIndex });
        events.push({ type: 'block_start', index: irIndex, block: { kind: 'reasoning' } });
        const thinking = readString(block, 'thinking') ?? '';
        if (thinking !== '') events.push({ type: 'reasoning_delta', index: irIndex, text: thinking });
        const signature = readString(block, 'signature') ?? '';
        if (signature !== '')
          events.push({ type: 'reasoning_opaque', index: irIndex, field: 'signature', value: { origin: 'messages', value: signature } });
        const data = readString(block, 'data');
        if (type === 'redacted_thinking' && data !== undefined) {
          events.push({ type: 'reasoning_opaque', index: irIndex, field: 'redacted', value: { origin: 'messages', value: data } });
        }
        return;
      }
      case 'tool_use': {
        const irIndex = this.nextIndex++;
        const name = readString(block, 'name') ?? '';
        const input = block.input;
        const startInput = isRecord(input) && Object.keys(input).length > 0 ? JSON.stringify(input) : '';
        if (this.context.jsonToolName !== undefined && name === this.context.jsonToolName) {
          this.jsonToolUsed = true;
          this.blocks.set(upstreamIndex, { kind: 'json_tool', irIndex, textSeen: false });
          events.push({ type: 'block_start', index: irIndex, block: { kind: 'text' } });
          return;
        }
        this.blocks.set(upstreamIndex, { kind: 'tool_call', irIndex, argumentsSeen: false, startInput });
        events.push({
          type: 'block_start',
          index: irIndex,
          block: { kind: 'tool_call', id: readString(block, 'id') ?? '', name: restoreToolName(name, this.context.toolNames) },
        });
        return;
      }
      default:
        // Server tools, their results and future block types: emitted whole at their stop.
        this.blocks.set(upstreamIndex, { kind: 'native', block, inputJson: '' });
    }
  }

  private blockDelta(upstreamIndex: number, delta: JsonRecord, events: IrStreamEvent[]): void {
    const receiving = this.blocks.get(upstreamIndex);
    if (receiving === undefined) return;
    const deltaType = readString(delta, 'type');
    switch (receiving.kind) {
      case 'text': {
        const text = deltaType === 'text_delta' ? readString(delta, 'text') : undefined;
        // citations_delta has no IR field: citations do not cross protocols.
        if (text) events.push({ type: 'text_delta', index: receiving.irIndex, text });
        return;
      }
      case 'reasoning': {
        if (deltaType === 'thinking_delta') {
          const text = readString(delta, 'thinking');
          if (text) events.push({ type: 'reasoning_delta', index: receiving.irIndex, text });
        } else if (deltaType === 'signature_delta') {
          const signature = readString(delta, 'signature');
          if (signature)
            events.push({
              type: 'reasoning_opaque',
              index: receiving.irIndex,
              field: 'signature',
              value: { origin: 'messages', value: signature },
            });
        }
        return;
      }
      case 'tool_call': {
        const json = deltaType === 'input_json_delta' ? readString(delta, 'partial_json') : undefined;
        if (!json) return;
        receiving.argumentsSeen = true;
        events.push({ type: 'tool_args_delta', index: receiving.irIndex, json });
        return;
      }
      case 'json_tool': {
        const json = deltaType === 'input_json_delta' ? readString(delta, 'partial_json') : undefined;
        if (!json) return;
        receiving.textSeen = true;
        events.push({ type: 'text_delta', index: receiving.irIndex, text: json });
        return;
      }
      case 'native':
        if (deltaType === 'input_json_delta') receiving.inputJson += readString(delta, 'partial_json') ?? '';
        return;
    }
  }

  private blockStop(upstreamIndex: number, events: IrStreamEvent[]): void {
    const receiving = this.blocks.get(upstreamIndex);
    if (receiving === undefined) return;
    this.blocks.delete(upstreamIndex);
    switch (receiving.kind) {
      case 'text':
      case 'reasoning':
        break;
      case 'tool_call':
        // Some relays put the whole input in content_block_start and send no deltas.
        if (!receiving.argumentsSeen && receiving.startInput !== '') {
          events.push({ type: 'tool_args_delta', index: receiving.irIndex, json: receiving.startInput });
        }
        break;
      case 'json_tool':
        if (!receiving.textSeen) events.push({ type: 'text_delta', index: receiving.irIndex, text: '{}' });
        break;
      case 'native': {
        const irIndex = this.nextIndex++;
        const value: JsonRecord = { ...receiving.block };
        if (receiving.inputJson !== '') {
          const input = parseJson(receiving.inputJson);
          value.input = isRecord(input) ? input : receiving.inputJson;
        }
        events.push({
          type: 'block_start',
          index: irIndex,
          block: { kind: 'native', part: { type: 'native', protocol: 'messages', value } },
        });
        events.push({ type: 'block_end', index: irIndex });
        return;
      }
    }
    events.push({ type: 'block_end', index: receiving.irIndex });
  }

  private messageDelta(data: JsonRecord, events: IrStreamEvent[]): void {
    this.usage = mergeMessagesUsage(this.usage, data.usage);
    const delta = readRecord(data, 'delta') ?? {};
    const stopReason = readString(delta, 'stop_reason');
    const finish = finishForJsonTool(mapMessagesFinishReason(stopReason, readString(delta, 'stop_sequence')), this.jsonToolUsed);
    const explanation = readString(readRecord(delta, 'stop_details') ?? {}, 'explanation');
    if (finish.unified === 'content_filter' && explanation) {
      // As in the complete answer: the refusal's explanation becomes the IR refusal text.
      const irIndex = this.nextIndex++;
      events.push({ type: 'block_start', index: irIndex, block: { kind: 'refusal' } });
      events.push({ type: 'refusal_delta', index: irIndex, text: explanation });
      events.push({ type: 'block_end', index: irIndex });
    }
    events.push({ type: 'usage', usage: convertMessagesUsage(this.usage) });
    if (stopReason !== undefined) events.push({ type: 'finish', finish });
  }
}

export function createMessagesStreamDecoder(context: UpstreamDecodeContext): StreamDecoder {
  return new MessagesStreamDecoder(context);
}
