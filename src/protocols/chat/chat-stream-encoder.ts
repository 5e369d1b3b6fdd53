/**
 * IR stream events → Chat Completions SSE frames, as the official SDK's accumulator needs them:
 * a first chunk with `role`, content / reasoning / refusal deltas, each tool call opened with its
 * id, type and name at a per-tool index (never the block index), the finish chunk held until the
 * upstream is done (usage arrives after the finish in Chat-family streams), the usage chunk only
 * when the client asked, then `[DONE]`. A failure after the first byte is one `{"error":…}` frame
 * and nothing else: no invented `stop`, no `[DONE]`.
 */
import { GatewayError } from '../../errors/gateway-error';
import { assertNever } from '../../ir/assert-never';
import type { FinishReason } from '../../ir/finish-reason';
import type { ReasoningPart } from '../../ir/parts';
import type { IrStreamEvent, StreamBlock } from '../../ir/stream-event';
import { ZERO_USAGE, type Usage } from '../../ir/usage';
import type { CodecContext, InboundStreamOptions, StreamEncoder } from '../codec';
import { sseFrame } from '../shared/sse-parser';
import { chatCompletionId } from './chat-completion-id';
import { wrapReasoningEnvelope } from './chat-reasoning-envelope';
import { embedToolCallId } from './chat-tool-call-id';
import type { ChatChunkBody, ChatChunkDelta } from './chat-wire-types';
import { toChatUsage } from './convert-chat-usage';
import { chatErrorBody } from './encode-chat-error';
import { toChatFinishReason } from './map-chat-finish-reason';

type OpenBlock =
  | { kind: 'text' | 'refusal' | 'native'; ended: boolean }
  | { kind: 'reasoning'; ended: boolean; part: ReasoningPart }
  | { kind: 'tool_call'; ended: boolean; toolIndex: number; argumentsSent: boolean };

const DONE_FRAME = 'data: [DONE]\n\n';

export class ChatStreamEncoder implements StreamEncoder {
  private phase: 'idle' | 'streaming' | 'terminated' = 'idle';
  private id = '';
  private created = 0;
  private readonly blocks = new Map<number, OpenBlock>();
  private nextToolIndex = 0;
  /** Every reasoning block so far: the `reasoning_signature` value covers them all. */
  private readonly reasoning: ReasoningPart[] = [];
  private finish: FinishReason | undefined;
  private usage: Usage | undefined;

  constructor(
    private readonly options: InboundStreamOptions,
    private readonly context: CodecContext,
  ) {}

  push(event: IrStreamEvent): string[] {
    if (this.phase === 'terminated') return [];
    switch (event.type) {
      case 'start':
        return this.start(event.id);
      case 'block_start':
        return this.blockStart(event.index, event.block);
      case 'text_delta':
        return event.text === '' ? [] : this.delta({ content: event.text });
      case 'refusal_delta':
        return event.text === '' ? [] : this.delta({ refusal: event.text });
      case 'reasoning_delta': {
        const block = this.blocks.get(event.index);
        if (block?.kind === 'reasoning') block.part.text += event.text;
        return event.text === '' ? [] : this.delta({ reasoning_content: event.text });
      }
      case 'reasoning_opaque': {
        const block = this.blocks.get(event.index);
        if (block?.kind === 'reasoning') block.part[event.field] = event.value;
        return [];
      }
      case 'tool_args_delta': {
        const block = this.blocks.get(event.index);
        if (block?.kind !== 'tool_call' || event.json === '') return [];
        block.argumentsSent = true;
        return this.delta({ tool_calls: [{ index: block.toolIndex, function: { arguments: event.json } }] });
      }
      case 'block_end':
        return this.blockEnd(event.index);
      case 'usage':
        this.usage = event.usage;
        return [];
      case 'finish':
        this.finish = event.finish;
        return [];
      case 'error':
        return this.fail(event.error);
      default:
        return assertNever(event, 'stream event');
    }
  }

  end(): string[] {
    if (this.phase === 'terminated') return [];
    const finish = this.finish;
    if (finish === undefined) {
      return this.fail(new GatewayError('upstream_error', 'the upstream stream ended before it finished'));
    }
    if (finish.unified === 'error') {
      return this.fail(new GatewayError('upstream_error', `the upstream ended the answer with an error (${finish.raw ?? 'unknown'})`));
    }
    const frames = this.start(undefined);
    for (const index of this.blocks.keys()) frames.push(...this.blockEnd(index));
    frames.push(this.frame({}, toChatFinishReason(finish.unified, this.nextToolIndex > 0)));
    if (this.options.includeUsage === true) {
      const usageChunk: ChatChunkBody = {
        ...this.envelope(),
        choices: [],
        usage: toChatUsage(this.usage ?? ZERO_USAGE),
      };
      frames.push(sseFrame(usageChunk));
    }
    frames.push(DONE_FRAME);
    this.phase = 'terminated';
    return frames;
  }

  fail(error: GatewayError): string[] {
    if (this.phase === 'terminated') return [];
    this.phase = 'terminated';
    return [sseFrame(chatErrorBody(error))];
  }

  /** The first chunk, once; later calls return nothing. */
  private start(upstreamId: string | undefined): string[] {
    if (this.phase !== 'idle') return [];
    this.phase = 'streaming';
    this.id = chatCompletionId(upstreamId, this.context);
    this.created = this.context.now();
    return [this.frame({ role: 'assistant', content: '' }, null)];
  }

  private blockStart(index: number, block: StreamBlock): string[] {
    switch (block.kind) {
      case 'text':
      case 'refusal':
      case 'native':
        this.blocks.set(index, { kind: block.kind, ended: false });
        return [];
      case 'reasoning': {
        const part: ReasoningPart = { type: 'reasoning', text: '' };
        if (block.itemId) part.itemId = block.itemId;
        this.reasoning.push(part);
        this.blocks.set(index, { kind: 'reasoning', ended: false, part });
        return [];
      }
      case 'tool_call': {
        const toolIndex = this.nextToolIndex++;
        this.blocks.set(index, { kind: 'tool_call', ended: false, toolIndex, argumentsSent: false });
        const id = embedToolCallId(block.id === '' ? this.context.newId('call_') : block.id, block.signature, this.context);
        return this.delta({ tool_calls: [{ index: toolIndex, id, type: 'function', function: { name: block.name, arguments: '' } }] });
      }
      default:
        return assertNever(block, 'stream block');
    }
  }

  private blockEnd(index: number): string[] {
    const block = this.blocks.get(index);
    if (block === undefined || block.ended) return [];
    block.ended = true;
    if (block.kind === 'tool_call' && !block.argumentsSent) {
      // A call with no arguments still shows a JSON string, as the non-streamed answer does.
      return this.delta({ tool_calls: [{ index: block.toolIndex, function: { arguments: '{}' } }] });
    }
    if (block.kind === 'reasoning') {
      const envelope = wrapReasoningEnvelope(this.reasoning);
      // Cumulative on purpose: the SDK keeps the last value of a field it does not know.
      if (envelope !== undefined) return this.delta({ reasoning_signature: envelope });
    }
    return [];
  }

  private delta(delta: ChatChunkDelta): string[] {
    const frames = this.start(undefined);
    frames.push(this.frame(delta, null));
    return frames;
  }

  private envelope(): Omit<ChatChunkBody, 'choices'> {
    return { id: this.id, object: 'chat.completion.chunk', created: this.created, model: this.options.model };
  }

  private frame(delta: ChatChunkDelta, finishReason: string | null): string {
    const chunk: ChatChunkBody = {
      ...this.envelope(),
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    };
    // With include_usage, OpenAI sends `usage: null` on every chunk but the last (clients test for null).
    if (this.options.includeUsage === true) chunk.usage = null;
    return sseFrame(chunk);
  }
}

export function createChatStreamEncoder(options: InboundStreamOptions, context: CodecContext): StreamEncoder {
  return new ChatStreamEncoder(options, context);
}
