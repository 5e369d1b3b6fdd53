/**
 * IR stream events → Messages SSE frames, as an explicit per-request state machine. It guarantees
 * what the official SDK's accumulator relies on (PROTOCOLS.md 4.1-4.3): one `message_start`,
 * contiguous block indexes from 0, one open block at a time, every block closed, `message_delta`
 * (held until the end so it carries the final usage) and `message_stop`, or a single `event: error`.
 */
import { GatewayError } from '../../errors/gateway-error';
import { assertNever } from '../../ir/assert-never';
import type { FinishReason } from '../../ir/finish-reason';
import type { Opaque } from '../../ir/opaque';
import type { ReasoningPart } from '../../ir/parts';
import type { IrStreamEvent, StreamBlock } from '../../ir/stream-event';
import type { Usage } from '../../ir/usage';
import type { CodecContext, InboundStreamOptions, StreamEncoder } from '../codec';
import { sseFrame } from '../shared/sse-parser';
import { isSignatureOnly, streamsInput } from './client-content';
import { encodeClientThinkingSignature, encodeClientToolUseId } from './client-opaque';
import { toMessagesUsage } from './convert-usage';
import { clientMessageId } from './encode-response';
import { messagesErrorBody } from './encode-error';
import { toMessagesStopReason } from './map-finish-reason';
import type { MessagesBlock } from './wire-types';

type ReasoningOpaques = Pick<ReasoningPart, 'signature' | 'redacted' | 'encrypted' | 'itemId'>;

/**
 * The block currently open on the IR side. `clientIndex` is set once the client-side block has
 * been started: text and reasoning blocks start lazily, so an empty IR block costs no index.
 */
type OpenBlock =
  | { kind: 'text'; irIndex: number; clientIndex?: number }
  | { kind: 'reasoning'; irIndex: number; clientIndex?: number; redacted: boolean; signed: boolean; foreign: ReasoningOpaques }
  | { kind: 'tool_call'; irIndex: number; clientIndex: number; argumentsSent: boolean }
  /** `clientIndex` stays unset for another protocol's native block, which the client never sees. */
  | { kind: 'native'; irIndex: number; clientIndex?: number };

function frame(type: string, payload: Record<string, unknown>): string {
  return sseFrame({ type, ...payload }, type);
}

export class MessagesStreamEncoder implements StreamEncoder {
  private started = false;
  private terminated = false;
  private nextIndex = 0;
  private open: OpenBlock | undefined;
  private startUsage: Partial<Usage> = {};
  private usage: Usage | undefined;
  private finish: FinishReason | undefined;

  constructor(
    private readonly options: InboundStreamOptions,
    private readonly context: CodecContext,
  ) {}

  push(event: IrStreamEvent): string[] {
    if (this.terminated) return [];
    const out: string[] = [];
    switch (event.type) {
      case 'start':
        this.ensureStarted(out, event.id, event.usage);
        break;
      case 'block_start':
        this.ensureStarted(out);
        this.closeOpen(out);
        this.openBlock(event.index, event.block, out);
        break;
      case 'text_delta':
      case 'refusal_delta': {
        const open = this.openAt(event.index);
        if (open?.kind !== 'text' || event.text === '') break;
        const index = this.startText(open, out);
        out.push(frame('content_block_delta', { index, delta: { type: 'text_delta', text: event.text } }));
        break;
      }
      case 'reasoning_delta': {
        const open = this.openAt(event.index);
        if (open?.kind !== 'reasoning' || open.redacted || event.text === '') break;
        const index = this.startThinking(open, out);
        out.push(frame('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: event.text } }));
        break;
      }
      case 'reasoning_opaque': {
        const open = this.openAt(event.index);
        if (open?.kind === 'reasoning') this.reasoningOpaque(open, event.field, event.value, out);
        break;
      }
      case 'tool_args_delta': {
        const open = this.openAt(event.index);
        if (open?.kind !== 'tool_call' || event.json === '') break;
        open.argumentsSent = true;
        out.push(frame('content_block_delta', { index: open.clientIndex, delta: { type: 'input_json_delta', partial_json: event.json } }));
        break;
      }
      case 'block_end':
        if (this.open?.irIndex === event.index) this.closeOpen(out);
        break;
      case 'usage':
        this.usage = event.usage;
        break;
      case 'finish':
        // Held: Chat upstreams send usage after the finish, and message_delta must carry it.
        this.finish = event.finish;
        break;
      case 'error':
        return [...out, ...this.fail(event.error)];
      default:
        assertNever(event, 'stream event');
    }
    return out;
  }

  end(): string[] {
    if (this.terminated) return [];
    if (this.finish === undefined) {
      // Never invent a clean finish for a stream that did not say how it ended.
      return this.fail(new GatewayError('upstream_error', 'the upstream stream ended without a finish reason'));
    }
    const out: string[] = [];
    this.ensureStarted(out);
    this.closeOpen(out);
    const stop = toMessagesStopReason(this.finish);
    out.push(
      frame('message_delta', {
        delta: { stop_reason: stop.stopReason, stop_sequence: stop.stopSequence },
        usage: toMessagesUsage(this.finalUsage()),
      }),
    );
    out.push(frame('message_stop', {}));
    this.terminated = true;
    return out;
  }

  fail(error: GatewayError): string[] {
    if (this.terminated) return [];
    this.terminated = true;
    return [sseFrame(messagesErrorBody(error), 'error')];
  }

  private finalUsage(): Usage {
    const start = this.startUsage;
    return (
      this.usage ?? {
        inputTokens: start.inputTokens ?? 0,
        cacheReadTokens: start.cacheReadTokens ?? 0,
        cacheWriteTokens: start.cacheWriteTokens ?? 0,
        outputTokens: start.outputTokens ?? 0,
        reasoningTokens: start.reasoningTokens ?? 0,
      }
    );
  }

  private ensureStarted(out: string[], upstreamId?: string, usage?: Partial<Usage>): void {
    if (this.started) return;
    this.started = true;
    this.startUsage = usage ?? {};
    // Input tokens may be unknown yet (Chat, Generate-Content upstreams): the best count known now is
    // the request's estimate; the final message_delta carries the upstream's figures.
    const startUsage = toMessagesUsage({
      inputTokens: this.startUsage.inputTokens ?? this.options.inputTokensEstimate ?? 0,
      cacheReadTokens: this.startUsage.cacheReadTokens ?? 0,
      cacheWriteTokens: this.startUsage.cacheWriteTokens ?? 0,
      outputTokens: this.startUsage.outputTokens ?? 0,
      reasoningTokens: 0,
    });
    out.push(
      frame('message_start', {
        message: {
          id: upstreamId === undefined ? this.context.newId('msg_') : clientMessageId(upstreamId, this.context),
          type: 'message',
          role: 'assistant',
          model: this.options.model,
          content: [],
          stop_reason: null,
          stop_sequence: null,
          usage: startUsage,
        },
      }),
    );
  }

  private openAt(irIndex: number): OpenBlock | undefined {
    return this.open?.irIndex === irIndex ? this.open : undefined;
  }

  private startClientBlock(block: MessagesBlock, out: string[]): number {
    const index = this.nextIndex++;
    out.push(frame('content_block_start', { index, content_block: block }));
    return index;
  }

  private openBlock(irIndex: number, block: StreamBlock, out: string[]): void {
    switch (block.kind) {
      case 'text':
      case 'refusal':
        this.open = { kind: 'text', irIndex };
        return;
      case 'reasoning':
        this.open = { kind: 'reasoning', irIndex, redacted: false, signed: false, foreign: {} };
        if (block.itemId && block.itemId.origin !== 'messages') this.open.foreign.itemId = block.itemId;
        return;
      case 'tool_call': {
        const clientIndex = this.startClientBlock(
          {
            type: 'tool_use',
            id: encodeClientToolUseId(block.id, block.signature),
            name: block.name,
            input: {},
          },
          out,
        );
        this.open = { kind: 'tool_call', irIndex, clientIndex, argumentsSent: false };
        return;
      }
      case 'native': {
        const part = block.part;
        this.open = { kind: 'native', irIndex };
        if (part.protocol !== 'messages') return;
        const value: MessagesBlock = { ...part.value, type: String(part.value.type) };
        if (!streamsInput(value)) {
          this.open.clientIndex = this.startClientBlock(value, out);
          return;
        }
        const input = value.input ?? {};
        const index = this.startClientBlock({ ...value, input: {} }, out);
        this.open.clientIndex = index;
        const json = JSON.stringify(input);
        out.push(frame('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: json === '{}' ? '' : json } }));
        return;
      }
      default:
        assertNever(block, 'stream block');
    }
  }

  private startText(open: Extract<OpenBlock, { kind: 'text' }>, out: string[]): number {
    open.clientIndex ??= this.startClientBlock({ type: 'text', text: '' }, out);
    return open.clientIndex;
  }

  private startThinking(open: Extract<OpenBlock, { kind: 'reasoning' }>, out: string[]): number {
    open.clientIndex ??= this.startClientBlock({ type: 'thinking', thinking: '', signature: '' }, out);
    return open.clientIndex;
  }

  private reasoningOpaque(
    open: Extract<OpenBlock, { kind: 'reasoning' }>,
    field: 'signature' | 'redacted' | 'encrypted',
    value: Opaque,
    out: string[],
  ): void {
    if (open.redacted) return;
    if (value.origin !== 'messages') {
      // Packed into one signature at the end of the block, as the complete answer does.
      open.foreign[field] = value;
      return;
    }
    if (field === 'redacted' && open.clientIndex === undefined) {
      open.redacted = true;
      open.clientIndex = this.startClientBlock({ type: 'redacted_thinking', data: value.value }, out);
      return;
    }
    if (field === 'signature') {
      const index = this.startThinking(open, out);
      open.signed = true;
      out.push(frame('content_block_delta', { index, delta: { type: 'signature_delta', signature: value.value } }));
    }
  }

  private closeOpen(out: string[]): void {
    const open = this.open;
    if (open === undefined) return;
    this.open = undefined;
    switch (open.kind) {
      case 'text':
      case 'native':
        break;
      case 'reasoning': {
        if (open.redacted || open.signed) break;
        const signature = encodeClientThinkingSignature(open.foreign);
        if (signature === '') break;
        // A signature-only block after an answer block would end the turn with thinking (see isSignatureOnly).
        if (open.clientIndex === undefined && this.nextIndex > 0 && isSignatureOnly({ text: '', ...open.foreign })) break;
        const index = this.startThinking(open, out);
        out.push(frame('content_block_delta', { index, delta: { type: 'signature_delta', signature } }));
        break;
      }
      case 'tool_call':
        // The real API streams one empty input_json_delta for a call without arguments.
        if (!open.argumentsSent) {
          out.push(frame('content_block_delta', { index: open.clientIndex, delta: { type: 'input_json_delta', partial_json: '' } }));
        }
        break;
      default:
        assertNever(open, 'open block');
    }
    if (open.clientIndex !== undefined) out.push(frame('content_block_stop', { index: open.clientIndex }));
  }
}

export function createMessagesStreamEncoder(options: InboundStreamOptions, context: CodecContext): StreamEncoder {
  return new MessagesStreamEncoder(options, context);
}
