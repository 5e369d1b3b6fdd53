/**
 * `streamGenerateContent` bytes → IR stream events. Chunks carry text deltas, thought deltas
 * (`thought: true`), whole function calls (or, with streamed arguments, a call opened by its name
 * and filled by `partialArgs` until an empty `functionCall`), cumulative usage, and the
 * `finishReason` on the last one; there is no other terminator, so a stream that closes before a
 * finishReason is reported as an error, never as a clean finish.
 *
 * States: waiting → started → in block (text | reasoning | tool call | streamed tool call | native)
 * → finished | failed.
 */
import { GatewayError } from '../../errors/gateway-error';
import type { Opaque } from '../../ir/opaque';
import type { IrStreamEvent, StreamBlock } from '../../ir/stream-event';
import type { StreamDecoder, UpstreamDecodeContext } from '../codec';
import { restoreToolName } from '../shared/tool-names';
import { convertGenerateContentUsage, hasGenerateContentUsage } from './convert-generate-content-usage';
import { generateContentStreamError } from './decode-generate-content-error';
import { GenerateContentChunkReader, type ReadChunk } from './generate-content-chunk-reader';
import { GenerateContentPartialArguments } from './generate-content-partial-arguments';
import {
  generateContentResponseSchema,
  type GenerateContentResponseBody,
  type GenerateContentResponseFunctionCall,
  type GenerateContentResponsePart,
} from './generate-content-response-schema';
import { GENERATE_CONTENT } from './generate-content-thought-signature';
import { mapGenerateContentFinishReason } from './map-generate-content-finish-reason';

interface OpenBlock {
  index: number;
  kind: StreamBlock['kind'];
  /** Reasoning: a signature closes a thought; more thought text after it starts a new block. */
  signed: boolean;
  /** Tool call whose arguments stream in as `partialArgs`. */
  streamedArguments?: GenerateContentPartialArguments;
  /**
   * Text: a signature that came on one of the block's text parts. The body decoder puts it after
   * the whole text (see decodeGenerateContentParts), so it is held until the block closes rather
   * than splitting the text around it.
   */
  heldSignature?: Opaque;
}

export function createGenerateContentStreamDecoder(context: UpstreamDecodeContext): StreamDecoder {
  return new GenerateContentStreamDecoder(context);
}

class GenerateContentStreamDecoder implements StreamDecoder {
  private readonly reader = new GenerateContentChunkReader();
  private started = false;
  private nextIndex = 0;
  private open: OpenBlock | undefined;
  private sawToolCall = false;
  private lastUsage = '';
  private state: 'streaming' | 'finished' | 'failed' = 'streaming';

  constructor(private readonly context: UpstreamDecodeContext) {}

  push(chunk: string): IrStreamEvent[] {
    if (this.state === 'failed') return [];
    return this.handle(this.reader.push(chunk));
  }

  end(): IrStreamEvent[] {
    if (this.state === 'failed') return [];
    const out = this.handle(this.reader.end());
    if (this.state === 'streaming') {
      this.state = 'failed';
      out.push({ type: 'error', error: new GatewayError('upstream_error', 'the upstream stream ended before its final chunk') });
    }
    return out;
  }

  private handle(chunks: ReadChunk[]): IrStreamEvent[] {
    const out: IrStreamEvent[] = [];
    for (const chunk of chunks) {
      if (this.state === 'failed') break;
      if (!chunk.ok) {
        this.fail(
          out,
          new GatewayError('upstream_error', 'the upstream sent a malformed stream chunk', { upstream: { status: 200, body: chunk.text } }),
        );
        continue;
      }
      const value = chunk.value;
      if (value !== null && typeof value === 'object' && !Array.isArray(value) && 'error' in value) {
        this.fail(out, generateContentStreamError(value as Record<string, unknown>));
        continue;
      }
      const parsed = generateContentResponseSchema.safeParse(value);
      if (!parsed.success) {
        this.fail(out, new GatewayError('upstream_error', 'the upstream sent a chunk that is not a GenerateContentResponse'));
        continue;
      }
      this.handleChunk(parsed.data, out);
    }
    return out;
  }

  private handleChunk(chunk: GenerateContentResponseBody, out: IrStreamEvent[]): void {
    if (!this.started) {
      this.started = true;
      const usage = hasGenerateContentUsage(chunk.usageMetadata) ? convertGenerateContentUsage(chunk.usageMetadata) : undefined;
      out.push({
        type: 'start',
        // Generate-Content response ids carry no prefix.
        id: chunk.responseId ?? this.context.newId(''),
        model: chunk.modelVersion ?? '',
        ...(usage ? { usage: { inputTokens: usage.inputTokens, cacheReadTokens: usage.cacheReadTokens } } : {}),
      });
    }
    const candidate = chunk.candidates?.[0];
    if (this.state === 'streaming') {
      for (const part of candidate?.content?.parts ?? []) this.handlePart(part, out);
    }
    if (hasGenerateContentUsage(chunk.usageMetadata)) {
      const usage = convertGenerateContentUsage(chunk.usageMetadata);
      const key = JSON.stringify(usage);
      if (key !== this.lastUsage) {
        this.lastUsage = key;
        out.push({ type: 'usage', usage });
      }
    }
    if (this.state !== 'streaming') return;
    const blockReason = candidate === undefined ? chunk.promptFeedback?.blockReason : undefined;
    if (candidate?.finishReason || blockReason) {
      this.closeBlock(out);
      this.state = 'finished';
      out.push({
        type: 'finish',
        finish: blockReason
          ? { unified: 'content_filter', raw: blockReason }
          : mapGenerateContentFinishReason(candidate?.finishReason, this.sawToolCall),
      });
    }
  }

  private handlePart(part: GenerateContentResponsePart, out: IrStreamEvent[]): void {
    const signature: Opaque | undefined = part.thoughtSignature ? { origin: GENERATE_CONTENT, value: part.thoughtSignature } : undefined;
    if (part.functionCall) {
      this.handleFunctionCall(part.functionCall, signature, out);
      return;
    }
    if (typeof part.text === 'string' && part.thought === true) {
      if (this.open?.kind !== 'reasoning' || this.open.signed) this.openBlock(out, { kind: 'reasoning' });
      const open = this.open as OpenBlock;
      if (part.text !== '') out.push({ type: 'reasoning_delta', index: open.index, text: part.text });
      if (signature) {
        out.push({ type: 'reasoning_opaque', index: open.index, field: 'signature', value: signature });
        open.signed = true;
      }
      return;
    }
    if (typeof part.text === 'string') {
      if (part.text !== '') {
        // A second signature in one block: the first belongs to the text so far, as two signed text parts of a body.
        if (this.open?.kind !== 'text' || (signature && this.open.heldSignature)) this.openBlock(out, { kind: 'text' });
        const open = this.open as OpenBlock;
        out.push({ type: 'text_delta', index: open.index, text: part.text });
        if (signature) {
          open.heldSignature = signature;
          return;
        }
      }
    } else {
      const { thoughtSignature: _signature, ...value } = part;
      if (Object.keys(value).some((key) => key !== 'thought')) {
        // Inline images, executable code and other kinds have no IR stream block but the native one.
        this.openBlock(out, { kind: 'native', part: { type: 'native', protocol: GENERATE_CONTENT, value } });
        this.closeBlock(out);
      }
    }
    if (signature) this.signatureBlock(signature, out);
  }

  /**
   * A signature on a part that is not a thought or a call: a reasoning block of its own (see
   * decodeGenerateContentParts). On an empty text part (the last part of a real stream) it ends the
   * text now; on a text part with text it waits in `heldSignature` for the text block to close.
   */
  private signatureBlock(signature: Opaque, out: IrStreamEvent[]): void {
    const index = this.openBlock(out, { kind: 'reasoning' });
    out.push({ type: 'reasoning_opaque', index, field: 'signature', value: signature });
    this.closeBlock(out);
  }

  private handleFunctionCall(call: GenerateContentResponseFunctionCall, signature: Opaque | undefined, out: IrStreamEvent[]): void {
    const streaming = this.open?.streamedArguments;
    if (!call.name) {
      if (!streaming) return; // a nameless call outside a streamed one carries nothing usable
      // The continuation of a call whose arguments stream in; an empty `functionCall` ends it.
      if (call.args) streaming.merge(call.args);
      for (const piece of call.partialArgs ?? []) streaming.apply(piece);
      if (call.willContinue !== true) this.closeBlock(out);
      return;
    }
    this.sawToolCall = true;
    const name = restoreToolName(call.name, this.context.toolNames);
    const id = call.id ?? this.context.newId('call_');
    const index = this.openBlock(out, { kind: 'tool_call', id, name, ...(signature ? { signature } : {}) });
    if (call.willContinue === true || (call.partialArgs?.length ?? 0) > 0) {
      const args = new GenerateContentPartialArguments(call.args);
      for (const piece of call.partialArgs ?? []) args.apply(piece);
      (this.open as OpenBlock).streamedArguments = args;
      if (call.willContinue !== true) this.closeBlock(out);
      return;
    }
    out.push({ type: 'tool_args_delta', index, json: JSON.stringify(call.args ?? {}) });
    this.closeBlock(out);
  }

  private openBlock(out: IrStreamEvent[], block: StreamBlock): number {
    this.closeBlock(out);
    const index = this.nextIndex++;
    this.open = { index, kind: block.kind, signed: false };
    out.push({ type: 'block_start', index, block });
    return index;
  }

  private closeBlock(out: IrStreamEvent[]): void {
    const open = this.open;
    if (!open) return;
    this.open = undefined;
    // Streamed arguments are sent as one delta once complete (rule 6 of PROTOCOLS.md §4.3).
    if (open.streamedArguments) out.push({ type: 'tool_args_delta', index: open.index, json: open.streamedArguments.toJson() });
    out.push({ type: 'block_end', index: open.index });
    if (open.heldSignature) this.signatureBlock(open.heldSignature, out);
  }

  private fail(out: IrStreamEvent[], error: GatewayError): void {
    this.state = 'failed';
    out.push({ type: 'error', error });
  }
}
