/**
 * IR stream events → Responses SSE frames, as an explicit per-request state machine.
 *
 * Sequence: `response.created` → `response.in_progress` → items → exactly one terminal event
 * (`response.completed` / `response.incomplete` / `response.failed`), every frame with an
 * increasing `sequence_number`. Consecutive text / refusal blocks share one message item (one
 * content part each), as `encodeOutputItems` groups them; reasoning and tool calls are items of
 * their own. One block is open at a time; a new block closes the open one. The finish is held until
 * `end()` so the terminal event carries the final usage.
 */
import type { GatewayError } from '../../errors/gateway-error';
import { assertNever } from '../../ir/assert-never';
import type { FinishReason } from '../../ir/finish-reason';
import type { Opaque } from '../../ir/opaque';
import type { IrStreamEvent, StreamBlock } from '../../ir/stream-event';
import { ZERO_USAGE, type Usage } from '../../ir/usage';
import { sseFrame } from '../shared/sse-parser';
import type { CodecContext, InboundStreamOptions, StreamEncoder } from '../codec';
import { EMPTY_ARGUMENTS } from '../shared/tool-arguments';
import { toResponsesUsage } from './convert-usage';
import { FAILED_FINISH_MESSAGE } from './encode-response';
import { responsesErrorFields } from './encode-error';
import { responsesStatusFor } from './map-finish-reason';
import { encodeCallId, encodeReasoningCarrier } from './opaque-carrier';
import { clientCallName, freeformInput, isFreeformCall } from './tool-namespaces';
import {
  customToolCallItem,
  functionCallItem,
  messageItem,
  outputTextContent,
  reasoningItem,
  refusalContent,
  type OutputContent,
} from './output-items';
import { buildResponseObject } from './response-object';

type Phase = 'idle' | 'streaming' | 'terminated';

interface OpenMessage {
  outputIndex: number;
  id: string;
  content: OutputContent[];
}

type OpenBlock =
  | { kind: 'text' | 'refusal'; irIndex: number; contentIndex: number; text: string }
  | {
      kind: 'reasoning';
      irIndex: number;
      outputIndex: number;
      id: string;
      text: string;
      summaryOpen: boolean;
      encrypted?: Opaque;
      signature?: Opaque;
      redacted?: Opaque;
    }
  /** `freeform`: a custom tool's call, whose input is sent whole when the arguments are complete. */
  | { kind: 'tool_call'; irIndex: number; outputIndex: number; id: string; callId: string; name: string; args: string; freeform: boolean }
  /** A block this protocol cannot show (another protocol's native block): its events are skipped. */
  | { kind: 'skipped'; irIndex: number };

const NO_FINISH_MESSAGE = 'the upstream stream ended without a finish reason';

export class ResponsesStreamEncoder implements StreamEncoder {
  private phase: Phase = 'idle';
  private sequence = 0;
  private responseId = '';
  private createdAt = 0;
  /** Finished items by output index; an open item's slot is filled when it is done. */
  private readonly output: Array<Record<string, unknown>> = [];
  private nextOutputIndex = 0;
  private message: OpenMessage | undefined;
  private block: OpenBlock | undefined;
  private finish: FinishReason | undefined;
  private usage: Usage | undefined;

  constructor(
    private readonly options: InboundStreamOptions,
    private readonly context: CodecContext,
  ) {}

  push(event: IrStreamEvent): string[] {
    if (this.phase === 'terminated') return [];
    if (event.type === 'error') return this.fail(event.error);
    const out: string[] = [];
    this.ensureStarted(out);
    switch (event.type) {
      case 'start':
        break;
      case 'block_start':
        this.startBlock(event.index, event.block, out);
        break;
      case 'text_delta':
      case 'refusal_delta':
        this.contentDelta(event.index, event.text, out);
        break;
      case 'reasoning_delta':
        this.reasoningDelta(event.index, event.text, out);
        break;
      case 'reasoning_opaque':
        if (this.block?.kind === 'reasoning' && this.block.irIndex === event.index) this.block[event.field] = event.value;
        break;
      case 'tool_args_delta':
        if (this.block?.kind === 'tool_call' && this.block.irIndex === event.index && event.json !== '') {
          this.block.args += event.json;
          if (this.block.freeform) break;
          out.push(
            this.frame('response.function_call_arguments.delta', {
              item_id: this.block.id,
              output_index: this.block.outputIndex,
              delta: event.json,
            }),
          );
        }
        break;
      case 'block_end':
        if (this.block?.irIndex === event.index) this.endBlock(out);
        break;
      case 'usage':
        this.usage = event.usage;
        break;
      case 'finish':
        this.finish = event.finish;
        break;
      default:
        assertNever(event, 'stream event');
    }
    return out;
  }

  end(): string[] {
    if (this.phase === 'terminated') return [];
    const out: string[] = [];
    this.ensureStarted(out);
    this.endBlock(out);
    this.closeMessage(out);
    if (this.finish === undefined) return [...out, ...this.failure('server_error', NO_FINISH_MESSAGE, null, 'api_error')];
    const { status, incompleteReason } = responsesStatusFor(this.finish);
    if (status === 'failed') return [...out, ...this.failure('server_error', FAILED_FINISH_MESSAGE, null, 'api_error')];
    out.push(
      this.frame(status === 'completed' ? 'response.completed' : 'response.incomplete', {
        response: this.response(status, incompleteReason, null),
      }),
    );
    this.phase = 'terminated';
    return out;
  }

  fail(error: GatewayError): string[] {
    return this.failWith(error, true);
  }

  /**
   * A refusal as OpenAI streams it (an over-long prompt): `response.created`, then the `error` event
   * and `response.failed`, with no `response.in_progress` between them.
   */
  refuse(error: GatewayError): string[] {
    return this.failWith(error, false);
  }

  private failWith(error: GatewayError, announceProgress: boolean): string[] {
    if (this.phase === 'terminated') return [];
    const out: string[] = [];
    this.ensureStarted(out, announceProgress);
    const fields = responsesErrorFields(error);
    return [...out, ...this.failure(fields.code, fields.message, fields.param, fields.type)];
  }

  /** The `error` event (the SDK throws on its nested `error`) and then `response.failed`. */
  private failure(code: string, message: string, param: string | null, type: string): string[] {
    const frames = [
      this.frame('error', { code, message, param, error: { type, code, message, param } }),
      this.frame('response.failed', { response: this.response('failed', null, { code, message }) }),
    ];
    this.phase = 'terminated';
    return frames;
  }

  private frame(type: string, payload: Record<string, unknown>): string {
    return sseFrame({ type, sequence_number: this.sequence++, ...payload }, type);
  }

  private response(
    status: 'in_progress' | 'completed' | 'incomplete' | 'failed',
    incompleteReason: string | null,
    error: { code: string; message: string } | null,
  ): Record<string, unknown> {
    const inProgress = status === 'in_progress';
    return buildResponseObject({
      id: this.responseId,
      createdAt: this.createdAt,
      model: this.options.model,
      status,
      incompleteReason,
      error,
      output: inProgress ? [] : this.output.filter((item) => item !== undefined),
      usage: inProgress ? null : toResponsesUsage(this.usage ?? ZERO_USAGE),
      ...(this.options.request !== undefined ? { request: this.options.request } : {}),
    });
  }

  private ensureStarted(out: string[], announceProgress = true): void {
    if (this.phase !== 'idle') return;
    this.phase = 'streaming';
    this.responseId = this.options.responseId ?? this.context.newId('resp_');
    this.createdAt = this.context.now();
    out.push(this.frame('response.created', { response: this.response('in_progress', null, null) }));
    if (announceProgress) out.push(this.frame('response.in_progress', { response: this.response('in_progress', null, null) }));
  }

  private addItem(item: Record<string, unknown>, out: string[]): number {
    const outputIndex = this.nextOutputIndex++;
    out.push(this.frame('response.output_item.added', { output_index: outputIndex, item }));
    return outputIndex;
  }

  private doneItem(outputIndex: number, item: Record<string, unknown>, out: string[]): void {
    this.output[outputIndex] = item;
    out.push(this.frame('response.output_item.done', { output_index: outputIndex, item }));
  }

  private startBlock(irIndex: number, block: StreamBlock, out: string[]): void {
    this.endBlock(out);
    switch (block.kind) {
      case 'text':
      case 'refusal': {
        const message = this.openMessage(out);
        const contentIndex = message.content.length;
        const part = block.kind === 'text' ? outputTextContent('') : refusalContent('');
        message.content.push(part);
        out.push(
          this.frame('response.content_part.added', {
            item_id: message.id,
            output_index: message.outputIndex,
            content_index: contentIndex,
            part,
          }),
        );
        this.block = { kind: block.kind, irIndex, contentIndex, text: '' };
        break;
      }
      case 'reasoning': {
        this.closeMessage(out);
        const id = block.itemId?.origin === 'responses' ? block.itemId.value : this.context.newId('rs_');
        const outputIndex = this.addItem({ type: 'reasoning', id, summary: [] }, out);
        this.block = { kind: 'reasoning', irIndex, outputIndex, id, text: '', summaryOpen: false };
        break;
      }
      case 'tool_call': {
        this.closeMessage(out);
        const id = this.context.newId('fc_');
        const callId = encodeCallId(block.id, block.signature, this.context);
        const tools = this.options.request?.tools;
        const freeform = isFreeformCall(block.name, tools);
        const name = clientCallName(block.name, tools);
        const outputIndex = this.addItem(
          freeform ? customToolCallItem(id, callId, name, '', 'in_progress') : functionCallItem(id, callId, name, '', 'in_progress'),
          out,
        );
        this.block = { kind: 'tool_call', irIndex, outputIndex, id, callId, name: block.name, args: '', freeform };
        break;
      }
      case 'native':
        if (block.part.protocol === 'responses') {
          // A server-tool item arrives whole: added and done at once.
          this.closeMessage(out);
          const outputIndex = this.addItem(block.part.value, out);
          this.doneItem(outputIndex, block.part.value, out);
        }
        this.block = { kind: 'skipped', irIndex };
        break;
      default:
        assertNever(block, 'stream block');
    }
  }

  private contentDelta(irIndex: number, text: string, out: string[]): void {
    const block = this.block;
    if (block === undefined || block.irIndex !== irIndex || text === '' || this.message === undefined) return;
    if (block.kind !== 'text' && block.kind !== 'refusal') return;
    block.text += text;
    out.push(
      this.frame(block.kind === 'text' ? 'response.output_text.delta' : 'response.refusal.delta', {
        item_id: this.message.id,
        output_index: this.message.outputIndex,
        content_index: block.contentIndex,
        delta: text,
        ...(block.kind === 'text' ? { logprobs: [] } : {}),
      }),
    );
  }

  private reasoningDelta(irIndex: number, text: string, out: string[]): void {
    const block = this.block;
    if (block?.kind !== 'reasoning' || block.irIndex !== irIndex || text === '') return;
    if (!block.summaryOpen) {
      block.summaryOpen = true;
      out.push(
        this.frame('response.reasoning_summary_part.added', {
          item_id: block.id,
          output_index: block.outputIndex,
          summary_index: 0,
          part: { type: 'summary_text', text: '' },
        }),
      );
    }
    block.text += text;
    out.push(
      this.frame('response.reasoning_summary_text.delta', {
        item_id: block.id,
        output_index: block.outputIndex,
        summary_index: 0,
        delta: text,
      }),
    );
  }

  private endBlock(out: string[]): void {
    const block = this.block;
    this.block = undefined;
    if (block === undefined) return;
    switch (block.kind) {
      case 'text':
      case 'refusal': {
        const message = this.message;
        if (message === undefined) return;
        const part = block.kind === 'text' ? outputTextContent(block.text) : refusalContent(block.text);
        message.content[block.contentIndex] = part;
        const where = { item_id: message.id, output_index: message.outputIndex, content_index: block.contentIndex };
        out.push(
          block.kind === 'text'
            ? this.frame('response.output_text.done', { ...where, text: block.text, logprobs: [] })
            : this.frame('response.refusal.done', { ...where, refusal: block.text }),
        );
        out.push(this.frame('response.content_part.done', { ...where, part }));
        break;
      }
      case 'reasoning': {
        const where = { item_id: block.id, output_index: block.outputIndex, summary_index: 0 };
        if (block.summaryOpen) {
          out.push(this.frame('response.reasoning_summary_text.done', { ...where, text: block.text }));
          out.push(
            this.frame('response.reasoning_summary_part.done', {
              ...where,
              part: { type: 'summary_text', text: block.text },
            }),
          );
        }
        const carrier = encodeReasoningCarrier(block);
        this.doneItem(block.outputIndex, reasoningItem(block.id, block.text, carrier), out);
        break;
      }
      case 'tool_call':
        if (block.freeform) {
          const input = freeformInput(block.args);
          const where = { item_id: block.id, output_index: block.outputIndex };
          if (input !== '') out.push(this.frame('response.custom_tool_call_input.delta', { ...where, delta: input }));
          out.push(this.frame('response.custom_tool_call_input.done', { ...where, input }));
          this.doneItem(
            block.outputIndex,
            customToolCallItem(block.id, block.callId, clientCallName(block.name, this.options.request?.tools), input, 'completed'),
            out,
          );
          break;
        }
        if (block.args.trim() === '') {
          // Nothing streamed (Messages sends `partial_json: ""` for a call without arguments): the
          // client still gets a JSON object, as one delta so the deltas add up to `arguments`.
          block.args += EMPTY_ARGUMENTS;
          out.push(
            this.frame('response.function_call_arguments.delta', {
              item_id: block.id,
              output_index: block.outputIndex,
              delta: EMPTY_ARGUMENTS,
            }),
          );
        }
        const called = clientCallName(block.name, this.options.request?.tools);
        // The spec requires `name` on this event (OpenAI sends it; clients read it there).
        out.push(
          this.frame('response.function_call_arguments.done', {
            item_id: block.id,
            output_index: block.outputIndex,
            name: called.name,
            arguments: block.args,
          }),
        );
        this.doneItem(block.outputIndex, functionCallItem(block.id, block.callId, called, block.args, 'completed'), out);
        break;
      case 'skipped':
        break;
      default:
        assertNever(block, 'open block');
    }
  }

  private openMessage(out: string[]): OpenMessage {
    if (this.message !== undefined) return this.message;
    const id = this.context.newId('msg_');
    const outputIndex = this.addItem(messageItem(id, [], 'in_progress'), out);
    this.message = { outputIndex, id, content: [] };
    return this.message;
  }

  private closeMessage(out: string[]): void {
    const message = this.message;
    this.message = undefined;
    if (message === undefined) return;
    this.doneItem(message.outputIndex, messageItem(message.id, message.content, 'completed'), out);
  }
}

export function createResponsesStreamEncoder(options: InboundStreamOptions, context: CodecContext): StreamEncoder {
  return new ResponsesStreamEncoder(options, context);
}
