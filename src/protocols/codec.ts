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

/**
 * Where a client's API key may be, in order of precedence: a header, `Authorization: Bearer`, or a
 * query parameter. Never the body. (auth/extract-credential.ts reads a list of these.)
 */
export type CredentialLocation = { header: string } | { bearer: true } | { query: string };

/**
 * An inference route a protocol serves: a fixed path (lower-case, no trailing slash; matched
 * case-insensitively with one optional trailing slash) or a pattern (matched on the path as sent).
 */
export type InferenceRoute = { path: string; endpoint?: 'compact' } | { pattern: RegExp };

/** What a protocol's request line says besides the body (Generate-Content: model, stream and framing). */
export interface RouteFacts {
  sse: boolean;
}

/** Remote compaction (Responses): the gateway's own compaction items and the compaction endpoints. */
export interface CompactionAnswer {
  contentType: string;
  body: string;
}

export interface CompactionAnswerOptions {
  /** `compact`: the compact endpoint's body; `trigger`: a Responses answer (streamed when asked). */
  endpoint: 'compact' | 'trigger';
  stream: boolean;
  key: Buffer;
  accountId: number;
  streamOptions: InboundStreamOptions;
  context: CodecContext;
}

export interface InboundCompaction {
  /** The key compaction items are sealed with, derived from the gateway's encryption key. */
  deriveKey(encryptionKey: Buffer): Buffer;
  /** Replaces the gateway's own compaction items by their summary; returns how many were opened. */
  openItems(request: IrRequest, key: Buffer, accountId: number): number;
  /** Whether a body asks for compaction with a trigger item. */
  hasTrigger(body: Record<string, unknown>): boolean;
  /** The request that asks the model for the summary. */
  summaryRequest(request: IrRequest): IrRequest;
  encodeAnswer(ir: IrResponse, options: CompactionAnswerOptions): CompactionAnswer;
}

/** A client request's headers or query, as node parses them. */
export type RequestValues = Readonly<Record<string, string | string[] | undefined>>;

export interface InboundCodec {
  readonly protocol: Protocol;
  /** The protocol's name in messages to clients (`Chat Completions`). */
  readonly displayName: string;
  /** The inference routes the protocol serves. */
  readonly routes: readonly InferenceRoute[];
  /** Path prefixes whose malformed HTTP requests are answered in this protocol's envelope. */
  readonly errorPathPrefixes: readonly string[];
  /** Where its clients send the API key, in order of precedence. */
  readonly credentials: readonly CredentialLocation[];
  /** The authentication error when none of `credentials` holds a key. */
  readonly missingCredentialMessage: string;
  /** The request field that caps the output, named in warnings. */
  readonly maxTokensField: string;
  /** Whether bodies may name ids kept in the opaque id store (loaded before the body is decoded). */
  readonly carriesOpaqueIds: boolean;
  /** Answers are stored under an id of this prefix so a later request can chain on them (Responses). */
  readonly storedAnswerIdPrefix?: string;
  readonly compaction?: InboundCompaction;
  /** Where clients name their conversation, for prompt-cache affinity: headers first, then body fields (paths). */
  readonly sessionSources: { readonly headers: readonly string[]; readonly fields: ReadonlyArray<readonly string[]> };
  /** Checks the protocol's own request headers: throws GatewayError(invalid_request) naming the header. */
  checkClientHeaders?(headers: RequestValues): void;
  /** The client's protocol headers an upstream of the same protocol must receive (undefined: none). */
  readClientHeaders?(headers: RequestValues): Record<string, string> | undefined;
  /** What the path and query add to the decoded request (model and stream), and the stream framing. */
  readRoute?(request: IrRequest, path: string, query: RequestValues): RouteFacts;
  /** Whether the client's body may go to an upstream of the same protocol unchanged. */
  canPassThrough(request: IrRequest, route: RouteFacts): boolean;
  /** What a silent stream sends to keep the connection open. */
  keepaliveFrame(options: InboundStreamOptions): string;
  /** The bare error frame for a pass-through stream the upstream cut without one of its own. */
  passThroughErrorFrame(error: GatewayError, options: InboundStreamOptions): string;
  /** Validates (zod) and decodes a client body. Throws GatewayError(invalid_request) naming the field. */
  decodeRequest(body: unknown, context: CodecContext): DecodedRequest;
  /** Renders a complete answer in this protocol's response shape. */
  encodeResponse(response: IrResponse, options: InboundStreamOptions, context: CodecContext): Record<string, unknown>;
  createStreamEncoder(options: InboundStreamOptions, context: CodecContext): StreamEncoder;
  /** The protocol's error envelope, before the first byte. */
  encodeError(error: GatewayError): RenderedError;
  /**
   * A refusal this protocol delivers inside a stream when the request was streamed (Responses: a
   * context overflow, as OpenAI does), as the whole stream's text; undefined (or absent): it is the
   * `encodeError` answer before the first byte.
   */
  streamedRefusal?(error: GatewayError, options: InboundStreamOptions, context: CodecContext): string | undefined;
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
  /** Whether structured output goes upstream as a JSON schema (else the encoder's fallback, when the model lacks it too). */
  readonly nativeJsonSchema: boolean;
  /** Image parts must carry their bytes: remote image URLs are downloaded before encoding. */
  readonly needsInlineImages: boolean;
  /** Adds the credential and the protocol's version header to an upstream request's headers. */
  authenticate(headers: Record<string, string>, credential: string): void;
}

/** What a pass-through call's path depends on, besides the model (the relay's plan carries these). */
export interface PassThroughCall {
  stream: boolean;
  /** The client asked for `?beta=true` (Messages). */
  betaQuery: boolean;
  /** The client called a variant endpoint (Responses' compact endpoint). */
  endpoint?: 'compact';
}

/**
 * Token counting in the protocol's own shape (a free endpoint). The upstream counts when an account
 * of the protocol serves the model, else the gateway estimates.
 */
export interface CountTokensCodec {
  /** A fixed path, or a pattern whose first group is the (percent-encoded) model name. */
  readonly route: string | RegExp;
  /** The inference body the count stands for: what `decodeRequest` validates. */
  inferenceBody(body: Record<string, unknown>): Record<string, unknown>;
  /** The client's body as the upstream's count endpoint takes it. */
  upstreamBody(body: Record<string, unknown>, upstreamModel: string): Record<string, unknown>;
  upstreamPath(upstreamModel: string): string;
  /** The count in an upstream answer; undefined when it has none. */
  readUpstreamCount(body: unknown): number | undefined;
  encodeCount(tokens: number): Record<string, unknown>;
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
  /** Other spellings of the protocol's name an operator may type (the dial test). */
  readonly aliases: readonly string[];
  readonly inbound: InboundCodec;
  readonly upstream: UpstreamCodec;
  /** Meter for the pass-through path; `stream` selects SSE or one JSON body. */
  createPassThroughMeter(stream: boolean): PassThroughMeter;
  /** The client's request headers a native upstream of this protocol receives (never credentials). */
  passThroughHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string>;
  /** Path under the upstream base URL a pass-through call goes to. */
  passThroughPath(upstreamModel: string, call: PassThroughCall): string;
  /**
   * The fix-ups a pass-through body gets (model name, fields the target refuses), on a copy of the
   * client's body; `family` is the model's catalog family (some fix-ups depend on the vendor).
   */
  fixPassThroughBody(body: Record<string, unknown>, upstreamModel: string, family: string, stream: boolean): void;
  /** A pass-through stream's frames as the client receives them (Chat: without the usage chunk it did not ask for). */
  passThroughStreamFilter?(request: IrRequest): ((chunk: string) => string) | undefined;
  /** Absent: the protocol has no token counting endpoint. */
  readonly countTokens?: CountTokensCodec;
}
