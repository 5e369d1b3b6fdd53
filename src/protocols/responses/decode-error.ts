/**
 * An upstream Responses error (an HTTP error body, or one inside a 200) → GatewayError: the kind
 * from the HTTP status, else from the error code (one mapping: `kindForResponsesError`), the
 * provider's message, and the retry hint from `retry-after-ms`, `retry-after` (seconds) or the
 * message's "try again in 1.5s / 120ms".
 */
import { GatewayError } from '../../errors/gateway-error';
import { kindForResponsesError } from './kind-for-responses-error';
import { openAiContextOverflow } from '../shared/openai-context-overflow';
import { retryAfterSeconds as readRetryAfter, type HeaderBag } from '../shared/retry-after';

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The `error` object of an OpenAI envelope (or of a stream `error` event), leniently. */
export function upstreamErrorMessage(payload: unknown): { message?: string; param?: string; code?: string; type?: string } {
  const root = record(payload);
  const error = record(root?.error) ?? root;
  const text = (key: string): string | undefined => {
    const value = error?.[key];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return { message: text('message'), param: text('param'), code: text('code'), type: text('type') };
}

/** What every decoded Responses failure is built from, so a body and a stream frame decode alike. */
interface UpstreamFailure {
  /** The HTTP status the error came with; absent when it came inside a 200 answer. */
  status?: number;
  payload: unknown;
  headers: HeaderBag;
  fallbackMessage: string;
  upstream: { status: number; body?: string };
}

function gatewayErrorFor({ status, payload, headers, fallbackMessage, upstream }: UpstreamFailure): GatewayError {
  const { message, param, code, type } = upstreamErrorMessage(payload);
  const contextOverflow = status === undefined || status < 500 ? openAiContextOverflow(message, code) : undefined;
  if (contextOverflow) {
    return new GatewayError('invalid_request', message ?? fallbackMessage, {
      ...(param !== undefined ? { param } : {}),
      contextOverflow,
      upstream,
    });
  }
  const kind = kindForResponsesError({ status, code, type });
  const retryAfterSeconds = readRetryAfter(headers, message);
  return new GatewayError(kind, message ?? fallbackMessage, {
    // An upstream 529 stays a 529; an in-band overload takes the kind's own status.
    ...(kind === 'overloaded' && status !== undefined ? { status } : {}),
    ...(param !== undefined && kind === 'invalid_request' ? { param } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    upstream,
  });
}

export function decodeResponsesError(status: number, body: string, headers: HeaderBag): GatewayError {
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    payload = undefined;
  }
  return gatewayErrorFor({
    status,
    payload,
    headers,
    fallbackMessage: body.trim() !== '' ? body.trim().slice(0, 500) : `upstream answered HTTP ${status}`,
    upstream: { status, body },
  });
}

/**
 * An error reported inside a 200 answer (a stream's `error` event, `response.failed`, a failed
 * complete body): no status, so the code names the kind, as it would have as an HTTP error.
 */
export function decodeResponsesInBandError(payload: unknown, fallbackMessage: string, rawBody?: string): GatewayError {
  return gatewayErrorFor({
    payload,
    headers: {},
    fallbackMessage,
    upstream: { status: 200, body: (rawBody ?? JSON.stringify(payload ?? null)).slice(0, 2000) },
  });
}
