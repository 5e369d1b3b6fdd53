/**
 * Chat Completions SSE from a provider (bytes split anywhere) → IR stream events. One block open at
 * a time with contiguous indexes; tool calls keyed by their `index` (or array position, for vendors
 * that omit it), a new `id` on a reused index being a new call; finish when `finish_reason`
 * arrives, usage whenever a chunk carries it (after the finish with `include_usage`, on the finish
 * chunk for groq / mistral / moonshot). Only `[DONE]` ends a stream cleanly: a connection closed
 * before it yields an `error` event, never a finish.
 */
import { GatewayError } from '../../errors/gateway-error';
import type { IrStreamEvent } from '../../ir/stream-event';
import type { StreamDecoder, UpstreamDecodeContext } from '../codec';
import { SseParser } from '../shared/sse-parser';
import { restoreToolName } from '../shared/tool-names';
import { chatChunkSchema, type ChatUpstreamChunk, type ChatUpstreamToolCall } from './chat-upstream-schema';
import { convertChatUsage } from './convert-chat-usage';
import { readChatErrorDetails } from './decode-chat-error';
import { mapChatFinishReason } from './map-chat-finish-reason';
import { readChatArguments, readChatContent } from './read-chat-content';

type TextKind = 'text' | 'reasoning' | 'refusal';

interface ToolState {
  blockIndex: number;
  id: string;
}

export class ChatStreamDecoder implements StreamDecoder {
  private readonly parser = new SseParser();
  private phase: 'streaming' | 'done' | 'failed' = 'streaming';
  private started = false;
  private finished = false;
  private open: { kind: TextKind | 'tool_call'; index: number } | undefined;
  private nextBlockIndex = 0;
  private readonly tools = new Map<number, ToolState>();
  private sawToolCall = false;

  constructor(private readonly context: UpstreamDecodeContext) {}

  push(chunk: string): IrStreamEvent[] {
    const events: IrStreamEvent[] = [];
    for (const event of this.parser.push(chunk)) this.handle(event.data, events);
    return events;
  }

  end(): IrStreamEvent[] {
    const events: IrStreamEvent[] = [];
    for (const event of this.parser.end()) this.handle(event.data, events);
    if (this.phase === 'streaming') {
      this.fail(events, new GatewayError('upstream_error', 'the upstream stream ended before [DONE]'));
    }
    return events;
  }

  private handle(data: string, events: IrStreamEvent[]): void {
    if (this.phase !== 'streaming') return;
    if (data.trim() === '[DONE]') {
      this.closeOpen(events);
      if (!this.finished) this.emitFinish(null, events);
      this.phase = 'done';
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(data);
    } catch {
      this.fail(events, new GatewayError('upstream_error', 'the upstream sent an unreadable stream chunk'));
      return;
    }
    const parsed = chatChunkSchema.safeParse(json);
    if (!parsed.success) {
      this.fail(events, new GatewayError('upstream_error', 'the upstream sent a malformed stream chunk', { cause: parsed.error }));
      return;
    }
    const chunk = parsed.data;
    if (chunk.error !== undefined && chunk.error !== null) {
      const details = readChatErrorDetails(json);
      this.fail(events, new GatewayError('upstream_error', details.message ?? 'the upstream failed mid-stream'));
      return;
    }
    if (!this.started) {
      this.started = true;
      events.push({ type: 'start', id: chunk.id || this.context.newId('chatcmpl-'), model: chunk.model ?? '' });
    }
    this.handleChoice(chunk, events);
    const usage = chunk.usage ?? chunk.x_groq?.usage;
    if (usage) events.push({ type: 'usage', usage: convertChatUsage(usage) });
  }

  private handleChoice(chunk: ChatUpstreamChunk, events: IrStreamEvent[]): void {
    // Only choice 0 is followed: the IR carries one answer (n > 1 is served without streaming translation).
    const choice = chunk.choices?.find((candidate) => (candidate.index ?? 0) === 0);
    if (!choice || this.finished) return;
    const delta = choice.delta;
    if (delta) {
      const content = readChatContent(delta.content);
      this.text('reasoning', (delta.reasoning_content ?? delta.reasoning ?? '') + content.reasoning, events);
      this.text('text', content.text, events);
      this.text('refusal', delta.refusal ?? '', events);
      (delta.tool_calls ?? []).forEach((call, position) => this.toolCall(call, position, events));
    }
    if (choice.finish_reason) {
      this.closeOpen(events);
      this.emitFinish(choice.finish_reason, events);
    }
  }

  private text(kind: TextKind, text: string, events: IrStreamEvent[]): void {
    if (text === '') return;
    if (this.open?.kind !== kind) {
      this.closeOpen(events);
      this.open = { kind, index: this.nextBlockIndex++ };
      events.push({ type: 'block_start', index: this.open.index, block: { kind } });
    }
    const index = this.open.index;
    switch (kind) {
      case 'text':
        events.push({ type: 'text_delta', index, text });
        break;
      case 'reasoning':
        events.push({ type: 'reasoning_delta', index, text });
        break;
      case 'refusal':
        events.push({ type: 'refusal_delta', index, text });
        break;
    }
  }

  private toolCall(call: ChatUpstreamToolCall, position: number, events: IrStreamEvent[]): void {
    const key = call.index ?? position;
    let tool = this.tools.get(key);
    if (tool === undefined || (call.id && call.id !== tool.id)) {
      this.closeOpen(events);
      tool = { blockIndex: this.nextBlockIndex++, id: call.id || this.context.newId('call_') };
      this.tools.set(key, tool);
      this.open = { kind: 'tool_call', index: tool.blockIndex };
      this.sawToolCall = true;
      const name = restoreToolName(call.function?.name ?? '', this.context.toolNames);
      events.push({ type: 'block_start', index: tool.blockIndex, block: { kind: 'tool_call', id: tool.id, name } });
    }
    // A fragment for a call that is no longer the open block (interleaved parallel calls, which no
    // known provider sends) still goes to its own block index rather than being lost.
    const json = readChatArguments(call.function?.arguments);
    if (json !== '') events.push({ type: 'tool_args_delta', index: tool.blockIndex, json });
  }

  private closeOpen(events: IrStreamEvent[]): void {
    if (this.open === undefined) return;
    events.push({ type: 'block_end', index: this.open.index });
    this.open = undefined;
  }

  private emitFinish(raw: string | null, events: IrStreamEvent[]): void {
    this.finished = true;
    events.push({ type: 'finish', finish: mapChatFinishReason(raw, this.sawToolCall) });
  }

  private fail(events: IrStreamEvent[], error: GatewayError): void {
    this.phase = 'failed';
    events.push({ type: 'error', error });
  }
}

export function createChatStreamDecoder(context: UpstreamDecodeContext): StreamDecoder {
  return new ChatStreamDecoder(context);
}
