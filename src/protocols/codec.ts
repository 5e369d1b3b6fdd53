/**
 * The codec contract: one codec per wire protocol, pure functions with no I/O. N protocols need N
 * codecs, never N×N translators. The inbound side speaks to clients, the upstream side to providers.
 */
import type { GatewayError } from '../errors/gateway-error';
import type { IrRequest } from '../ir/request';
import type { IrResponse } from '../ir/response';
import type { IrStreamEvent } from '../ir/stream-event';
import type { Protocol } from '../ir/protocol';
import type { TranslationWarning } from '../ir/warning';
import type { Usage } from '../ir/usage';
import type { FinishReason } from '../ir/finish-reason';

/** Deterministic sources of ids and time, so the same input always gives the same output. */
export interface CodecContext {
  /** A new id with the given prefix (`msg_`, `chatcmpl-`, `call_`, `resp_`, `fc_`, `rs_`, `toolu_`). */
  newId(prefix: string): string;
  /** Unix seconds. */
  now(): number;
  /** The gateway's own store for values too long for the id that must carry them (absent: ids carry them whole). */
  opaqueIds?: OpaqueIdStore;
}

/**
 * Keeps a value a client must send back inside an id with a length limit (OpenAI caps a call id at
 * 64 characters) and gives a short id in its place. Synchronous: the pipeline loads the values a
 * request names before the codec decodes it.
 */
export interface OpaqueIdStore {
  keep(value: string): string;
  /** The value kept for `id`; undefined for any other id (or one no longer kept). */
  find(id: string): string | undefined;
}

/** What the upstream side knows about the model it is encoding for (from the catalog). */
export interface UpstreamTarget {
  /** The model name the upstream expects. */
  upstreamModel: string;
  /** Catalog `max_output_tokens`: default for protocols that require a cap (Messages). */
  maxOutputTokens: number;
  /** Whether the model has native structured output (else Messages uses a forced tool). */
  nativeJsonSchema: boolean;
}

export interface DecodedRequest {
  request: IrRequest;
  warnings: TranslationWarning[];
}

export interface EncodedUpstreamRequest {
  /** Path under the upstream base URL, e.g. `/v1/messages`, `/v1beta/models/x:streamGenerateContent?alt=sse`. */
  path: string;
  body: Record<string, unknown>;
  /** Protocol headers beyond auth and content type (e.g. `anthropic-version`). */
  headers: Record<string, string>;
  /** Sanitized tool name → the client's original name, to restore names in the answer. */
  toolNames: Record<string, string>;
  warnings: TranslationWarning[];
  /**
   * True when the answer must be post-processed (Messages forced-`json` tool whose input becomes
   * the text answer).
   */
  jsonToolName?: string;
}

export interface UpstreamDecodeContext extends CodecContext {
  toolNames: Record<string, string>;
  jsonToolName?: string;
}

export interface RenderedError {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Per-request state machine: IR events in, wire frames (already framed, ready to write) out. */
export interface StreamEncoder {
  push(event: IrStreamEvent): string[];
  /** The upstream stream ended: close open blocks and emit the terminal events. */
  end(): string[];
  /** A failure after the first byte: the protocol's error frame (and nothing else after it). */
  fail(error: GatewayError): string[];
}

/** Per-request state machine: raw upstream bytes (as text, split anywhere) in, IR events out. */
export interface StreamDecoder {
  push(chunk: string): IrStreamEvent[];
  /** The upstream closed the connection. Emits what was pending; a stream cut short yields an `error` event. */
  end(): IrStreamEvent[];
}

export interface InboundStreamOptions {
  /** The catalog slug to report as `model`. */
  model: string;
  /** Chat: whether the client asked for the usage chunk. */
  includeUsage?: boolean;
  /** Generate-Content: `alt=sse` framing, else a streamed JSON array. */
  sse?: boolean;
  /** Responses: echo of the request fields the `response` object carries. */
  request?: IrRequest;
  /** Responses: the id the stored response will have. */
  responseId?: string;
  /**
   * The request's estimated input tokens: what a Messages `message_start` reports when the upstream
   * has not counted yet (clients such as LangChain read input tokens there only).
   */
  inputTokensEstimate?: number;
}

export interface InboundCodec {
  readonly protocol: Protocol;
  /** Validates (zod) and decodes a client body. Throws GatewayError(invalid_request) naming the field. */
  decodeRequest(body: unknown, context: CodecContext): DecodedRequest;
  /** Renders a complete answer in this protocol's response shape. */
  encodeResponse(response: IrResponse, options: InboundStreamOptions, context: CodecContext): Record<string, unknown>;
  createStreamEncoder(options: InboundStreamOptions, context: CodecContext): StreamEncoder;
  /** The protocol's error envelope, before the first byte. */
  encodeError(error: GatewayError): RenderedError;
  /** Content type of a streamed answer. */
  streamContentType(options: InboundStreamOptions): string;
}

export interface UpstreamCodec {
  readonly protocol: Protocol;
  encodeRequest(request: IrRequest, target: UpstreamTarget, context: CodecContext): EncodedUpstreamRequest;
  decodeResponse(body: unknown, context: UpstreamDecodeContext): IrResponse;
  createStreamDecoder(context: UpstreamDecodeContext): StreamDecoder;
  /** Turns an upstream error answer into a GatewayError (status, message, retry hints). */
  decodeError(status: number, body: string, headers: Record<string, string | string[] | undefined>): GatewayError;
}

/**
 * Native pass-through: inbound protocol = upstream protocol. The body goes through untouched; the
 * meter reads usage, finish reason and error frames from the passing bytes, with plain JSON reads
 * (no schema validation per frame), and counts a stream's output for billing an abandoned one.
 */
export interface PassThroughMeter {
  /** Feed the raw response body (complete) or stream chunks (text, split anywhere). */
  push(chunk: string): void;
  /** A stream: whether an error frame has passed so far (a body is judged at `end`). */
  failed(): boolean;
  /** A stream the client abandoned: the usage reported so far, else the output counted (ir/usage-tally). */
  untilAbort(inputEstimate: number): Usage;
  end(): { usage: Usage; finish: FinishReason | null; error: boolean };
}

export interface Codec {
  readonly protocol: Protocol;
  readonly inbound: InboundCodec;
  readonly upstream: UpstreamCodec;
  /** Meter for the pass-through path; `stream` selects SSE or one JSON body. */
  createPassThroughMeter(stream: boolean): PassThroughMeter;
  /** The client's request headers a native upstream of this protocol receives (never credentials). */
  passThroughHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string>;
}
