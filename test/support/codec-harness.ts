/**
 * The gateway's translation path without the gateway, for the cross-codec suites (conformance,
 * 4×4 matrix, pitfalls): client wire request → inbound.decodeRequest → IR → upstream.encodeRequest
 * → HTTP to the in-process provider simulator → upstream decode (body, or stream decoder fed the
 * bytes split at random offsets) → inbound.encodeResponse / stream encoder → client wire answer.
 * It mirrors what `src/relay` does (model and stream from a Generate-Content URL, the stream options,
 * `encoder.fail` on an upstream error event) and records every stage in a trace for assertions.
 * `pipelineFetch` packs it as a `fetch`, so the official SDKs are the clients at both ends.
 */
import type { GatewayError } from '../../src/errors/gateway-error';
import { isGatewayError } from '../../src/errors/gateway-error';
import type { ContentPart } from '../../src/ir/parts';
import type { Protocol } from '../../src/ir/protocol';
import type { IrRequest } from '../../src/ir/request';
import type { IrResponse } from '../../src/ir/response';
import type { IrStreamEvent } from '../../src/ir/stream-event';
import type { TranslationWarning } from '../../src/ir/warning';
import type {
  CodecContext,
  EncodedUpstreamRequest,
  InboundStreamOptions,
  UpstreamDecodeContext,
  UpstreamTarget,
} from '../../src/protocols/codec';
import { CODECS } from '../../src/relay/codec-registry';
import { upstreamHeaders } from '../../src/relay/upstream-headers';
import type { Simulator } from '../../scripts/provider-sim/server';
import { deterministicContext, splitBytesRandomly } from './sdk-responses';

/** The credential the in-process simulator accepts (its default). */
export const SIM_KEY = 'sim-key';

/** A `sim-` model is served by the simulator on every protocol; `sim-g3` adds the gemini-3 signature rule. */
export const SIM_MODELS: Record<Protocol, string> = {
  messages: 'sim-claude',
  responses: 'sim-gpt',
  chat: 'sim-chat',
  'generate-content': 'sim-g3-flash',
};

/** The simulator's cap for `sim-` models. */
export const SIM_MAX_OUTPUT_TOKENS = 32_768;

/** What the relay would pass as the upstream target for a `sim-` model on `protocol`. */
export function simTarget(protocol: Protocol, overrides: Partial<UpstreamTarget> = {}): UpstreamTarget {
  return {
    upstreamModel: SIM_MODELS[protocol],
    maxOutputTokens: SIM_MAX_OUTPUT_TOKENS,
    // As `prepareUpstreamCall` decides: Messages answers JSON through a forced tool.
    nativeJsonSchema: protocol !== 'messages',
    ...overrides,
  };
}

/** Everything that happened to one client request on its way through the codecs. */
export interface PipelineTrace {
  inbound: Protocol;
  upstream: Protocol;
  stream: boolean;
  clientUrl: string;
  /** What the client's SDK sent. */
  clientRequest: unknown;
  /** The IR as the inbound decoder produced it (before any URL inlining). */
  decodedRequest?: IrRequest;
  decodeWarnings: TranslationWarning[];
  /** The IR as it was encoded upstream (URL images inlined for Generate-Content). */
  upstreamRequest?: IrRequest;
  encoded?: EncodedUpstreamRequest;
  simStatus?: number;
  simText?: string;
  /** Non-streamed: the upstream answer as IR. */
  irResponse?: IrResponse;
  /** Streamed: the upstream decoder's events. */
  irEvents?: IrStreamEvent[];
  clientStatus?: number;
  /** Non-streamed client body, or the rendered error envelope. */
  clientBody?: unknown;
  /** Streamed client frames, in order. */
  clientFrames?: string[];
  /** A GatewayError thrown by a codec (rendered to the client in its envelope). */
  failure?: GatewayError;
}

export interface PipelineOptions {
  inbound: Protocol;
  upstream: Protocol;
  sim: Simulator;
  /** Every request's trace is pushed here, oldest first. */
  traces: PipelineTrace[];
  /** Overrides of the upstream target (model name, caps, native JSON schema). */
  target?: Partial<UpstreamTarget>;
  /**
   * The relay downloads image URLs a Generate-Content upstream cannot take; tests mimic it by
   * replacing URL sources with these bytes. Undefined: URLs go to the encoder as they are.
   */
  inlineUrl?: (url: string) => { mediaType: string; data: string } | undefined;
  /** Source of split offsets for the upstream bytes (seeded in tests, for reproducible failures). */
  random?: () => number;
  /** Extra headers for the upstream call (e.g. `x-sim-fault`). */
  upstreamHeaders?: Record<string, string>;
  context?: CodecContext;
}

const GENERATE_CONTENT_PATH = /\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

function urlOf(input: string | URL | Request): string {
  return typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
}

async function bodyOf(input: string | URL | Request, init: RequestInit | undefined): Promise<unknown> {
  if (typeof init?.body === 'string') return JSON.parse(init.body) as unknown;
  if (input instanceof Request) return JSON.parse(await input.text()) as unknown;
  return undefined;
}

/** A body handed over in pieces split at random byte offsets, as a socket would. */
function streamedResponse(text: string, contentType: string, random: () => number): Response {
  const bytes = Buffer.from(text, 'utf8');
  const pieces: Uint8Array[] = [];
  for (let offset = 0; offset < bytes.length;) {
    const size = 1 + Math.floor(random() * 64);
    pieces.push(new Uint8Array(bytes.subarray(offset, offset + size)));
    offset += size;
  }
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next < pieces.length) controller.enqueue(pieces[next++]);
      else controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': contentType } });
}

function jsonAnswer(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
}

/** Replaces http(s) image sources (also inside tool results) as the relay's inlining does. */
export function inlineImageUrls(request: IrRequest, inline: (url: string) => { mediaType: string; data: string } | undefined): void {
  const visit = (parts: ContentPart[]): void => {
    for (const part of parts) {
      if (part.type === 'image' && part.source.kind === 'url') {
        const bytes = inline(part.source.url);
        if (bytes) part.source = { kind: 'base64', mediaType: bytes.mediaType, data: bytes.data };
      }
      if (part.type === 'tool_result') visit(part.content);
    }
  };
  for (const turn of request.turns) visit(turn.parts);
}

/**
 * Sends an encoded upstream request to the simulator, as the relay's upstream client would. A
 * connection cut mid-body (fault `cut`) yields the bytes received so far and `cut: true`.
 */
export async function callSimulator(
  sim: Simulator,
  protocol: Protocol,
  encoded: EncodedUpstreamRequest,
  extraHeaders: Record<string, string> = {},
): Promise<{ status: number; text: string; cut: boolean }> {
  const response = await fetch(sim.url + encoded.path, {
    method: 'POST',
    headers: { ...upstreamHeaders(protocol, SIM_KEY, encoded.headers), ...extraHeaders },
    body: JSON.stringify(encoded.body),
  });
  const decoder = new TextDecoder();
  let text = '';
  let cut = false;
  const reader = response.body?.getReader();
  try {
    for (;;) {
      if (reader === undefined) break;
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    cut = true;
  }
  return { status: response.status, text: text + decoder.decode(), cut };
}

/** Runs the stream decoder over `text` split at random offsets; returns every IR event. */
export function decodeStream(protocol: Protocol, text: string, context: UpstreamDecodeContext, random: () => number): IrStreamEvent[] {
  const decoder = CODECS[protocol].upstream.createStreamDecoder(context);
  const events: IrStreamEvent[] = [];
  for (const piece of splitBytesRandomly(text, random)) events.push(...decoder.push(piece));
  events.push(...decoder.end());
  return events;
}

/**
 * Feeds IR events to a client stream encoder the way `relayStream` does: an `error` event stops
 * the stream with `fail`, otherwise `end` closes it.
 */
export function encodeStream(
  protocol: Protocol,
  events: readonly IrStreamEvent[],
  options: InboundStreamOptions,
  context: CodecContext,
): string[] {
  const encoder = CODECS[protocol].inbound.createStreamEncoder(options, context);
  const frames: string[] = [];
  for (const event of events) {
    if (event.type === 'error') {
      frames.push(...encoder.fail(event.error));
      return frames;
    }
    frames.push(...encoder.push(event));
  }
  frames.push(...encoder.end());
  return frames;
}

/**
 * A `fetch` that plays the gateway for one (inbound, upstream) pair: the official SDK of the inbound
 * protocol calls it, it translates, asks the simulator and translates back.
 */
export function pipelineFetch(options: PipelineOptions): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  const context = options.context ?? deterministicContext();
  const random = options.random ?? Math.random;
  const inbound = CODECS[options.inbound].inbound;
  const upstream = CODECS[options.upstream].upstream;

  return async (input, init) => {
    const clientUrl = urlOf(input);
    const clientRequest = await bodyOf(input, init);
    const trace: PipelineTrace = {
      inbound: options.inbound,
      upstream: options.upstream,
      stream: false,
      clientUrl,
      clientRequest,
      decodeWarnings: [],
    };
    options.traces.push(trace);
    try {
      const decoded = inbound.decodeRequest(clientRequest, context);
      const request = decoded.request;
      let sse = false;
      if (options.inbound === 'generate-content') {
        const url = new URL(clientUrl);
        const match = GENERATE_CONTENT_PATH.exec(url.pathname);
        request.model = decodeURIComponent(match?.[1] ?? '').replace(/^models\//, '');
        request.stream = match?.[2] === 'streamGenerateContent';
        sse = url.searchParams.get('alt') === 'sse';
      }
      trace.stream = request.stream;
      trace.decodedRequest = structuredClone(request);
      trace.decodeWarnings = decoded.warnings;

      const upstreamRequest: IrRequest = structuredClone(request);
      if (options.upstream === 'generate-content' && options.inlineUrl) inlineImageUrls(upstreamRequest, options.inlineUrl);
      trace.upstreamRequest = upstreamRequest;
      const encoded = upstream.encodeRequest(upstreamRequest, simTarget(options.upstream, options.target), context);
      trace.encoded = encoded;

      const answer = await callSimulator(options.sim, options.upstream, encoded, options.upstreamHeaders);
      trace.simStatus = answer.status;
      trace.simText = answer.text;
      if (answer.status >= 400) throw upstream.decodeError(answer.status, answer.text, {});

      const decodeContext: UpstreamDecodeContext = { ...context, toolNames: encoded.toolNames, jsonToolName: encoded.jsonToolName };
      const streamOptions: InboundStreamOptions = {
        model: request.model,
        includeUsage: request.includeUsage,
        sse,
        request,
        responseId: options.inbound === 'responses' ? context.newId('resp_') : undefined,
      };
      if (!request.stream) {
        const ir = upstream.decodeResponse(JSON.parse(answer.text) as unknown, decodeContext);
        trace.irResponse = ir;
        const body = inbound.encodeResponse({ ...ir, model: request.model }, streamOptions, context);
        trace.clientStatus = 200;
        trace.clientBody = body;
        return jsonAnswer(200, body);
      }
      const events = decodeStream(options.upstream, answer.text, decodeContext, random);
      trace.irEvents = events;
      const frames = encodeStream(options.inbound, events, streamOptions, context);
      trace.clientStatus = 200;
      trace.clientFrames = frames;
      return streamedResponse(frames.join(''), inbound.streamContentType(streamOptions), random);
    } catch (error) {
      if (!isGatewayError(error)) throw error;
      trace.failure = error;
      const rendered = inbound.encodeError(error);
      trace.clientStatus = rendered.status;
      trace.clientBody = rendered.body;
      return jsonAnswer(rendered.status, rendered.body, rendered.headers);
    }
  };
}

/** A short description of a failed trace, so a failing test says what the simulator or codec objected to. */
export function describeTrace(trace: PipelineTrace | undefined): string {
  if (trace === undefined) return 'no request reached the pipeline';
  const parts = [`${trace.inbound} → ${trace.upstream}${trace.stream ? ' (stream)' : ''}`];
  if (trace.failure) parts.push(`failure: ${trace.failure.kind} ${trace.failure.message}`);
  if (trace.simStatus !== undefined && trace.simStatus >= 400) parts.push(`simulator ${trace.simStatus}: ${trace.simText?.slice(0, 600)}`);
  if (trace.encoded) parts.push(`upstream body: ${JSON.stringify(trace.encoded.body).slice(0, 1500)}`);
  return parts.join('\n');
}
