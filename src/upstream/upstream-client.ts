/**
 * HTTP to upstream providers through one undici Agent with keep-alive pools (not fetch(): web
 * streams cost a quarter of a slow peer's CPU). Timeouts: connect, first byte (headers), idle
 * between body chunks. Bodies are returned as node Readables for streaming without buffering.
 */
import { Agent, errors as undiciErrors, type Dispatcher } from 'undici';
import { GatewayError } from '../errors/gateway-error';
import { createPinnedAgent } from '../net/pinned-agent';

export interface UpstreamCallOptions {
  url: string;
  method?: 'GET' | 'POST' | 'DELETE';
  headers: Record<string, string>;
  body?: string | Buffer;
  signal?: AbortSignal;
  /** Overrides of the configured timeouts (ms). */
  firstByteTimeoutMs?: number;
  idleTimeoutMs?: number;
  /**
   * The address the outbound guard checked for this URL (an upstream's media URL, src/net): the call
   * gets a connection of its own pinned to it instead of the pool's, which would look the host up again.
   */
  connectTo?: string;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData['body'];
}

export interface UpstreamClient {
  call(options: UpstreamCallOptions): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export function createUpstreamClient(options: {
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
  idleTimeoutMs: number;
  connections?: number;
}): UpstreamClient {
  const agent = new Agent({
    connections: options.connections ?? 4096,
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    pipelining: 1,
    connect: { timeout: options.connectTimeoutMs },
  });
  return {
    async call(call) {
      const pinned =
        call.connectTo === undefined ? undefined : createPinnedAgent(call.connectTo, { connectTimeoutMs: options.connectTimeoutMs });
      try {
        // Parsed once; the path comes from the parsed URL too, so a base URL with an upper-case host
        // or an explicit default port (whose origin is normalized) cannot shift it.
        const url = new URL(call.url);
        const response = await (pinned ?? agent).request({
          origin: url.origin,
          path: `${url.pathname}${url.search}`,
          method: call.method ?? 'POST',
          headers: call.headers,
          body: call.body,
          signal: call.signal,
          headersTimeout: call.firstByteTimeoutMs ?? options.firstByteTimeoutMs,
          bodyTimeout: call.idleTimeoutMs ?? options.idleTimeoutMs,
        });
        return { status: response.statusCode, headers: response.headers, body: response.body };
      } catch (error) {
        throw toUpstreamError(error);
      } finally {
        // Graceful: waits for the body the caller is still reading, then drops the one-use connection.
        void pinned?.close();
      }
    },
    close: () => agent.close(),
  };
}

/** The whole upstream body as text; a transport failure while reading becomes a GatewayError. */
export async function readUpstreamText(response: UpstreamResponse): Promise<string> {
  try {
    return await response.body.text();
  } catch (error) {
    throw toUpstreamError(error);
  }
}

/** Transport failures (refused, reset, timeouts) → retryable GatewayErrors. */
export function toUpstreamError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof undiciErrors.HeadersTimeoutError)
    return new GatewayError('timeout', 'upstream did not answer in time', { cause: error, upstream: { status: 0 } });
  if (error instanceof undiciErrors.BodyTimeoutError)
    return new GatewayError('timeout', 'upstream stream went silent', { cause: error, upstream: { status: 0 } });
  if (error instanceof undiciErrors.ConnectTimeoutError)
    return new GatewayError('timeout', 'could not connect to upstream in time', { cause: error, upstream: { status: 0 } });
  if ((error as { name?: string }).name === 'AbortError')
    return new GatewayError('upstream_error', 'upstream request aborted', { cause: error, upstream: { status: 0 } });
  return new GatewayError('upstream_error', 'upstream connection failed', { cause: error, upstream: { status: 0 } });
}
