/**
 * IR stream events → `streamGenerateContent` frames for a client: partial GenerateContentResponses
 * (text deltas, whole functionCall parts), the finish reason and usage on the last frame only
 * (pitfall 12), as SSE `data:` frames (`alt=sse`) or as one streamed JSON array.
 *
 * States: open (no block) → in block (text | reasoning | tool call | refusal | native) → … →
 * terminated (after `end` or `fail`; nothing is written after that).
 */
import { GatewayError } from '../../errors/gateway-error';
import { assertNever } from '../../ir/assert-never';
import type { FinishReason } from '../../ir/finish-reason';
import type { Opaque } from '../../ir/opaque';
import type { IrStreamEvent, StreamBlock } from '../../ir/stream-event';
import type { Usage } from '../../ir/usage';
import type { CodecContext, InboundStreamOptions, StreamEncoder } from '../codec';
import { sseFrame } from '../shared/sse-parser';
import { argumentsToObject } from '../shared/tool-arguments';
import type { GenerateContentClientPart } from './encode-generate-content-client-part';
import { generateContentErrorBody } from './encode-generate-content-error';
import { encodeGenerateContentFinishReason } from './encode-generate-content-finish-reason';
import { encodeGenerateContentUsage } from './encode-generate-content-usage';
import { GENERATE_CONTENT, reasoningToThoughtSignature, signatureToThoughtSignature } from './generate-content-thought-signature';

interface OpenBlock {
  index: number;
  block: StreamBlock;
  /** Tool call: arguments gathered until the block ends (a functionCall part is sent whole). */
  argumentsJson: string;
  /** Reasoning: whether thought text was sent, and the opaque values to send at the end. */
  hadText: boolean;
  opaques: { signature?: Opaque; redacted?: Opaque; encrypted?: Opaque };
}

export function createGenerateContentStreamEncoder(options: InboundStreamOptions, context: CodecContext): StreamEncoder {
  return new GenerateContentStreamEncoder(options, context);
}

class GenerateContentStreamEncoder implements StreamEncoder {
  private responseId: string | undefined;
  private open: OpenBlock | undefined;
  private finish: FinishReason | undefined;
  private usage: Usage | undefined;
  private framesWritten = 0;
  private terminated = false;

  constructor(
    private readonly options: InboundStreamOptions,
    private readonly context: CodecContext,
  ) {}

  push(event: IrStreamEvent): string[] {
    if (this.terminated) return [];
    const out: string[] = [];
    switch (event.type) {
      case 'start':
        this.responseId = event.id;
        break;
      case 'block_start':
        this.closeBlock(out);
        this.open = { index: event.index, block: event.block, argumentsJson: '', hadText: false, opaques: {} };
        if (event.block.kind === 'native' && event.block.part.protocol === GENERATE_CONTENT)
          out.push(this.partFrame(event.block.part.value));
        break;
      case 'text_delta':
      case 'refusal_delta':
        if (event.text !== '') out.push(this.partFrame({ text: event.text }));
        break;
      case 'reasoning_delta':
        if (event.text !== '') {
          if (this.open) this.open.hadText = true;
          out.push(this.partFrame({ text: event.text, thought: true }));
        }
        break;
      case 'reasoning_opaque':
        if (this.open) this.open.opaques[event.field] = event.value;
        break;
      case 'tool_args_delta':
        if (this.open) this.open.argumentsJson += event.json;
        break;
      case 'block_end':
        this.closeBlock(out);
        break;
      case 'usage':
        this.usage = event.usage;
        break;
      case 'finish':
        // Held until the end: usage may still come, and only the last frame may carry a finishReason.
        this.finish = event.finish;
        break;
      case 'error':
        out.push(...this.fail(event.error));
        break;
      default:
        return assertNever(event, 'stream event');
    }
    return out;
  }

  end(): string[] {
    if (this.terminated) return [];
    const out: string[] = [];
    this.closeBlock(out);
    if (this.finish === undefined) {
      // Never invent a clean STOP for an answer that did not finish.
      out.push(...this.fail(new GatewayError('upstream_error', 'the upstream stream ended before the answer was complete')));
      return out;
    }
    const last: Record<string, unknown> = {
      candidates: [
        {
          // An empty text part keeps the chunk valid for SDKs that drop chunks without parts.
          content: { role: 'model', parts: [{ text: '' }] },
          finishReason: encodeGenerateContentFinishReason(this.finish),
          index: 0,
        },
      ],
    };
    if (this.usage) last.usageMetadata = encodeGenerateContentUsage(this.usage);
    out.push(this.frame(this.withIds(last)));
    this.terminated = true;
    if (!this.options.sse) out.push(']');
    return out;
  }

  fail(error: GatewayError): string[] {
    if (this.terminated) return [];
    this.terminated = true;
    const frame = this.frame(generateContentErrorBody(error));
    return this.options.sse ? [frame] : [frame, ']'];
  }

  private closeBlock(out: string[]): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    const block = open.block;
    switch (block.kind) {
      case 'tool_call':
        out.push(
          this.partFrame({
            functionCall: { id: block.id, name: block.name, args: argumentsToObject(open.argumentsJson) },
            ...(block.signature ? { thoughtSignature: signatureToThoughtSignature(block.signature) } : {}),
          }),
        );
        break;
      case 'reasoning': {
        const thoughtSignature = reasoningToThoughtSignature({ ...open.opaques, itemId: block.itemId });
        if (thoughtSignature !== undefined) {
          out.push(this.partFrame({ text: '', ...(open.hadText ? { thought: true } : {}), thoughtSignature }));
        }
        break;
      }
      case 'text':
      case 'refusal':
      case 'native':
        break;
      default:
        assertNever(block, 'stream block');
    }
  }

  private partFrame(part: GenerateContentClientPart): string {
    return this.frame(this.withIds({ candidates: [{ content: { role: 'model', parts: [part] }, index: 0 }] }));
  }

  private withIds(chunk: Record<string, unknown>): Record<string, unknown> {
    this.responseId ??= this.context.newId('');
    chunk.modelVersion = this.options.model;
    chunk.responseId = this.responseId;
    return chunk;
  }

  private frame(chunk: Record<string, unknown>): string {
    const json = JSON.stringify(chunk);
    if (this.options.sse) return sseFrame(json);
    // Streamed JSON array: `[` before the first element, `,` between elements, `]` at the end.
    return (this.framesWritten++ === 0 ? '[' : ',\r\n') + json;
  }
}
