/**
 * Upstream Responses SSE (text split anywhere) → IR stream events, as an explicit per-request
 * state machine.
 *
 * Blocks: each message content part is a text or refusal block, each reasoning item a reasoning
 * block (summary parts joined by a blank line), each function call a tool-call block, and any other
 * item (server tools) a native block emitted whole at `output_item.done`. Indexes are ours,
 * contiguous from 0, one block open at a time. Values sent only in `.done` events are emitted as
 * one delta when nothing was streamed. The finish and usage come from the terminal event; a stream
 * that ends without one yields an `error` event, never a clean finish.
 */
import { GatewayError } from '../../errors/gateway-error';
import type { ContentPart } from '../../ir/parts';
import type { IrStreamEvent } from '../../ir/stream-event';
import { SseParser } from '../shared/sse-parser';
import { restoreToolName } from '../shared/tool-names';
import type { StreamDecoder, UpstreamDecodeContext } from '../codec';
import { convertResponsesUsage } from './convert-usage';
import { decodeOutputItem, reasoningText } from './decode-output-item';
import { decodeResponsesInBandError } from './decode-error';
import { expandParallelToolCall, isUndeclaredParallelWrapper } from './expand-parallel-tool-call';
import { mapResponsesFinishReason } from './map-finish-reason';
import { outputItemSchema, responseBodySchema, streamEventSchema, type OutputItem, type StreamEventBody } from './response-schema';

type OpenBlock =
  | { kind: 'text' | 'refusal'; irIndex: number; outputIndex: number; contentIndex: number; streamed: boolean }
  | { kind: 'reasoning'; irIndex: number; outputIndex: number; streamed: boolean; summaryParts: number; partStreamed: boolean }
  | { kind: 'tool_call'; irIndex: number; outputIndex: number; streamed: boolean };

/** Items that are not (or not yet) an open block. */
type PendingItem =
  | { kind: 'message'; sawContent: boolean }
  /** The undeclared `parallel` wrapper: held whole until `output_item.done`, then expanded. */
  | { kind: 'buffered_call'; callId: string; name: string; args: string }
  | { kind: 'other' };

export class ResponsesStreamDecoder implements StreamDecoder {
  private readonly parser = new SseParser();
  private started = false;
  private terminated = false;
  private nextIndex = 0;
  private open: OpenBlock | undefined;
  private readonly pending = new Map<number, PendingItem>();
  private readonly outputIndexById = new Map<string, number>();
  private sawToolCall = false;

  constructor(private readonly context: UpstreamDecodeContext) {}

  push(chunk: string): IrStreamEvent[] {
    const out: IrStreamEvent[] = [];
    for (const frame of this.parser.push(chunk)) this.handleFrame(frame.data, out);
    return out;
  }

  end(): IrStreamEvent[] {
    const out: IrStreamEvent[] = [];
    for (const frame of this.parser.end()) this.handleFrame(frame.data, out);
    if (!this.terminated) {
      this.terminated = true;
      out.push({
        type: 'error',
        error: new GatewayError('upstream_error', 'the upstream stream ended before response.completed'),
      });
    }
    return out;
  }

  private handleFrame(data: string, out: IrStreamEvent[]): void {
    if (this.terminated || data === '[DONE]') return;
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      this.fail(new GatewayError('upstream_error', 'the upstream stream sent a frame that is not JSON'), out);
      return;
    }
    const parsed = streamEventSchema.safeParse(json);
    if (parsed.success) this.handleEvent(parsed.data, json, out);
  }

  private fail(error: GatewayError, out: IrStreamEvent[]): void {
    this.terminated = true;
    out.push({ type: 'error', error });
  }

  private ensureStarted(response: unknown, out: IrStreamEvent[]): void {
    if (this.started) return;
    this.started = true;
    const parsed = responseBodySchema.safeParse(response);
    const body = parsed.success ? parsed.data : undefined;
    out.push({ type: 'start', id: body?.id ?? this.context.newId('resp_'), model: body?.model ?? '' });
  }

  private outputIndex(event: StreamEventBody): number {
    if (typeof event.output_index === 'number') return event.output_index;
    return (event.item_id ? this.outputIndexById.get(event.item_id) : undefined) ?? -1;
  }

  private handleEvent(event: StreamEventBody, raw: unknown, out: IrStreamEvent[]): void {
    if (event.type === 'error') {
      this.fail(decodeResponsesInBandError(raw, 'the upstream stream reported an error'), out);
      return;
    }
    this.ensureStarted(event.response, out);
    const outputIndex = this.outputIndex(event);
    switch (event.type) {
      case 'response.output_item.added':
        this.itemAdded(outputIndex, event.item, out);
        break;
      case 'response.content_part.added':
        this.contentPartAdded(outputIndex, event, out);
        break;
      case 'response.output_text.delta':
        this.contentDelta('text', outputIndex, event.content_index ?? 0, event.delta ?? '', out);
        break;
      case 'response.refusal.delta':
        this.contentDelta('refusal', outputIndex, event.content_index ?? 0, event.delta ?? '', out);
        break;
      case 'response.output_text.done':
        this.contentDone('text', outputIndex, event.content_index ?? 0, event.text ?? '', out);
        break;
      case 'response.refusal.done':
        this.contentDone('refusal', outputIndex, event.content_index ?? 0, event.refusal ?? '', out);
        break;
      case 'response.content_part.done': {
        const kind = event.part?.type === 'refusal' ? 'refusal' : 'text';
        this.contentDone(kind, outputIndex, event.content_index ?? 0, event.part?.text ?? event.part?.refusal ?? '', out);
        if (this.open?.kind === kind && this.open.outputIndex === outputIndex) this.closeOpen(out);
        break;
      }
      case 'response.reasoning_summary_part.added':
        this.reasoningPartAdded(outputIndex, out);
        break;
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        this.reasoningDelta(outputIndex, event.delta ?? '', out);
        break;
      case 'response.reasoning_summary_text.done':
        if (this.open?.kind === 'reasoning' && this.open.outputIndex === outputIndex && !this.open.partStreamed) {
          this.reasoningDelta(outputIndex, event.text ?? '', out);
        }
        break;
      case 'response.function_call_arguments.delta':
        this.argumentsDelta(outputIndex, event.delta ?? '', out);
        break;
      case 'response.function_call_arguments.done':
        this.argumentsDone(outputIndex, event.arguments ?? '', out);
        break;
      case 'response.output_item.done':
        this.itemDone(outputIndex, event.item, out);
        break;
      case 'response.completed':
      case 'response.incomplete':
        this.finish(event.response, out);
        break;
      case 'response.failed': {
        const body = responseBodySchema.safeParse(event.response);
        const error = body.success ? body.data.error : undefined;
        this.fail(decodeResponsesInBandError({ error }, 'the upstream response failed', JSON.stringify(raw)), out);
        break;
      }
      default:
        // `response.created`, progress events of server tools, annotations: nothing to decode.
        break;
    }
  }

  private startBlock(open: OpenBlock, event: IrStreamEvent, out: IrStreamEvent[]): void {
    this.closeOpen(out);
    this.open = open;
    out.push(event);
  }

  private closeOpen(out: IrStreamEvent[]): void {
    if (this.open === undefined) return;
    out.push({ type: 'block_end', index: this.open.irIndex });
    this.open = undefined;
  }

  private itemAdded(outputIndex: number, rawItem: unknown, out: IrStreamEvent[]): void {
    const parsed = outputItemSchema.safeParse(rawItem);
    if (!parsed.success) return;
    const item = parsed.data;
    if (item.id) this.outputIndexById.set(item.id, outputIndex);
    this.closeOpen(out);
    switch (item.type) {
      case 'message':
        this.pending.set(outputIndex, { kind: 'message', sawContent: false });
        break;
      case 'reasoning': {
        const irIndex = this.nextIndex++;
        this.startBlock(
          { kind: 'reasoning', irIndex, outputIndex, streamed: false, summaryParts: 0, partStreamed: false },
          {
            type: 'block_start',
            index: irIndex,
            block: { kind: 'reasoning', ...(item.id ? { itemId: { origin: 'responses' as const, value: item.id } } : {}) },
          },
          out,
        );
        break;
      }
      case 'function_call': {
        const name = item.name ?? '';
        const callId = item.call_id ?? item.id ?? '';
        this.sawToolCall = true;
        if (isUndeclaredParallelWrapper(name, this.context.toolNames)) {
          this.pending.set(outputIndex, { kind: 'buffered_call', callId, name, args: '' });
          break;
        }
        const irIndex = this.nextIndex++;
        this.startBlock(
          { kind: 'tool_call', irIndex, outputIndex, streamed: false },
          {
            type: 'block_start',
            index: irIndex,
            block: { kind: 'tool_call', id: callId, name: restoreToolName(name, this.context.toolNames) },
          },
          out,
        );
        if (item.arguments) this.argumentsDelta(outputIndex, item.arguments, out);
        break;
      }
      default:
        this.pending.set(outputIndex, { kind: 'other' });
    }
  }

  private contentPartAdded(outputIndex: number, event: StreamEventBody, out: IrStreamEvent[]): void {
    const kind = event.part?.type === 'refusal' ? 'refusal' : event.part?.type === 'output_text' ? 'text' : undefined;
    if (kind === undefined) return;
    this.openContent(kind, outputIndex, event.content_index ?? 0, out);
    const initial = kind === 'text' ? event.part?.text : event.part?.refusal;
    if (initial) this.contentDelta(kind, outputIndex, event.content_index ?? 0, initial, out);
  }

  private openContent(kind: 'text' | 'refusal', outputIndex: number, contentIndex: number, out: IrStreamEvent[]): void {
    const pending = this.pending.get(outputIndex);
    if (pending?.kind === 'message') pending.sawContent = true;
    const irIndex = this.nextIndex++;
    this.startBlock(
      { kind, irIndex, outputIndex, contentIndex, streamed: false },
      { type: 'block_start', index: irIndex, block: { kind } },
      out,
    );
  }

  private contentDelta(kind: 'text' | 'refusal', outputIndex: number, contentIndex: number, text: string, out: IrStreamEvent[]): void {
    const open = this.open;
    const matches = open?.kind === kind && open.outputIndex === outputIndex && open.contentIndex === contentIndex;
    // A delta without its `content_part.added` still opens the block rather than being lost.
    if (!matches) this.openContent(kind, outputIndex, contentIndex, out);
    const block = this.open;
    if (block === undefined || text === '') return;
    block.streamed = true;
    out.push(kind === 'text' ? { type: 'text_delta', index: block.irIndex, text } : { type: 'refusal_delta', index: block.irIndex, text });
  }

  private contentDone(kind: 'text' | 'refusal', outputIndex: number, contentIndex: number, text: string, out: IrStreamEvent[]): void {
    const open = this.open;
    if (open?.kind !== kind || open.outputIndex !== outputIndex || open.contentIndex !== contentIndex) return;
    if (!open.streamed && text !== '') this.contentDelta(kind, outputIndex, contentIndex, text, out);
  }

  private reasoningPartAdded(outputIndex: number, out: IrStreamEvent[]): void {
    const open = this.open;
    if (open?.kind !== 'reasoning' || open.outputIndex !== outputIndex) return;
    open.summaryParts++;
    open.partStreamed = false;
    if (open.streamed) out.push({ type: 'reasoning_delta', index: open.irIndex, text: '\n\n' });
  }

  private reasoningDelta(outputIndex: number, text: string, out: IrStreamEvent[]): void {
    const open = this.open;
    if (open?.kind !== 'reasoning' || open.outputIndex !== outputIndex || text === '') return;
    open.streamed = true;
    open.partStreamed = true;
    out.push({ type: 'reasoning_delta', index: open.irIndex, text });
  }

  private argumentsDelta(outputIndex: number, delta: string, out: IrStreamEvent[]): void {
    const pending = this.pending.get(outputIndex);
    if (pending?.kind === 'buffered_call') {
      pending.args += delta;
      return;
    }
    const open = this.open;
    if (open?.kind !== 'tool_call' || open.outputIndex !== outputIndex || delta === '') return;
    open.streamed = true;
    out.push({ type: 'tool_args_delta', index: open.irIndex, json: delta });
  }

  private argumentsDone(outputIndex: number, argumentsJson: string, out: IrStreamEvent[]): void {
    const pending = this.pending.get(outputIndex);
    if (pending?.kind === 'buffered_call') {
      pending.args = argumentsJson;
      return;
    }
    const open = this.open;
    if (open?.kind === 'tool_call' && open.outputIndex === outputIndex && !open.streamed) {
      this.argumentsDelta(outputIndex, argumentsJson, out);
    }
  }

  private itemDone(outputIndex: number, rawItem: unknown, out: IrStreamEvent[]): void {
    const parsed = outputItemSchema.safeParse(rawItem);
    if (!parsed.success) return;
    const item = parsed.data;
    const pending = this.pending.get(outputIndex);
    this.pending.delete(outputIndex);
    const open = this.open;
    if (open !== undefined && open.outputIndex === outputIndex) {
      if (open.kind === 'reasoning') this.finishReasoning(open, item, out);
      if (open.kind === 'tool_call' && !open.streamed && item.arguments) this.argumentsDelta(outputIndex, item.arguments, out);
      this.closeOpen(out);
      return;
    }
    this.closeOpen(out);
    if (pending?.kind === 'message' && pending.sawContent) return;
    if (pending?.kind === 'buffered_call') {
      const args = item.arguments ?? pending.args;
      const calls = expandParallelToolCall(pending.callId, pending.name, args, this.context.toolNames) ?? [
        {
          type: 'tool_call' as const,
          id: pending.callId,
          name: restoreToolName(pending.name, this.context.toolNames),
          argumentsJson: args,
        },
      ];
      this.emitWhole(calls, out);
      return;
    }
    // Items never announced in pieces (server tools, or providers that skip the part events) arrive whole.
    this.emitWhole(decodeOutputItem(rawItem, this.context.toolNames), out);
  }

  private finishReasoning(open: Extract<OpenBlock, { kind: 'reasoning' }>, item: OutputItem, out: IrStreamEvent[]): void {
    if (!open.streamed) {
      const text = reasoningText(item);
      if (text !== '') out.push({ type: 'reasoning_delta', index: open.irIndex, text });
    }
    // The final encrypted content is the one on `output_item.done` (it differs from `added`).
    if (item.encrypted_content) {
      out.push({
        type: 'reasoning_opaque',
        index: open.irIndex,
        field: 'encrypted',
        value: { origin: 'responses', value: item.encrypted_content },
      });
    }
  }

  /** Whole parts as complete blocks (start, one delta, end). */
  private emitWhole(parts: ContentPart[], out: IrStreamEvent[]): void {
    for (const part of parts) {
      const index = this.nextIndex++;
      switch (part.type) {
        case 'text':
          out.push({ type: 'block_start', index, block: { kind: 'text' } });
          if (part.text !== '') out.push({ type: 'text_delta', index, text: part.text });
          break;
        case 'refusal':
          out.push({ type: 'block_start', index, block: { kind: 'refusal' } });
          if (part.text !== '') out.push({ type: 'refusal_delta', index, text: part.text });
          break;
        case 'reasoning':
          out.push({ type: 'block_start', index, block: { kind: 'reasoning', ...(part.itemId ? { itemId: part.itemId } : {}) } });
          if (part.text !== '') out.push({ type: 'reasoning_delta', index, text: part.text });
          if (part.encrypted) out.push({ type: 'reasoning_opaque', index, field: 'encrypted', value: part.encrypted });
          break;
        case 'tool_call':
          this.sawToolCall = true;
          out.push({ type: 'block_start', index, block: { kind: 'tool_call', id: part.id, name: part.name } });
          if (part.argumentsJson !== '') out.push({ type: 'tool_args_delta', index, json: part.argumentsJson });
          break;
        case 'native':
          out.push({ type: 'block_start', index, block: { kind: 'native', part } });
          break;
        default:
          // decodeOutputItem yields only the kinds above.
          this.nextIndex--;
          continue;
      }
      out.push({ type: 'block_end', index });
    }
  }

  private finish(response: unknown, out: IrStreamEvent[]): void {
    this.closeOpen(out);
    const parsed = responseBodySchema.safeParse(response);
    const body = parsed.success ? parsed.data : undefined;
    out.push({ type: 'usage', usage: convertResponsesUsage(body?.usage) });
    out.push({
      type: 'finish',
      finish: mapResponsesFinishReason(body?.status, body?.incomplete_details?.reason, this.sawToolCall),
    });
    this.terminated = true;
  }
}

export function createResponsesStreamDecoder(context: UpstreamDecodeContext): StreamDecoder {
  return new ResponsesStreamDecoder(context);
}
