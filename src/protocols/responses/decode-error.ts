/**
 * An upstream Responses error answer → GatewayError: the kind from the HTTP status (one place:
 * `kindForUpstreamStatus`), the provider's message, and the retry hint from `retry-after-ms`,
 * `retry-after` (seconds) or the message's "try again in 1.5s / 120ms".
 */
import { GatewayError, kindForUpstreamStatus, type ErrorKind } from '../../errors/gateway-error';

type Headers = Record<string, string | string[] | undefined>;

function header(headers: Headers, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== name) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function positive(value: number): number | undefined {
  return Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** Seconds to wait, when the upstream said. An HTTP-date `retry-after` needs a clock: ignored. */
export function retryAfterFrom(headers: Headers, message: string | undefined): number | undefined {
  const ms = header(headers, 'retry-after-ms');
  if (ms !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return positive(Number(ms) / 1000);
  const seconds = header(headers, 'retry-after');
  if (seconds !== undefined && /^\s*\d+(\.\d+)?\s*$/.test(seconds)) return positive(Number(seconds));
  const hint = message === undefined ? null : /try again in (\d+(?:\.\d+)?)\s*(ms|s)\b/i.exec(message);
  if (hint) return positive(hint[2].toLowerCase() === 'ms' ? Number(hint[1]) / 1000 : Number(hint[1]));
  return undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** The `error` object of an OpenAI envelope (or of a stream `error` event), leniently. */
export function upstreamErrorMessage(payload: unknown): { message?: string; param?: string; code?: string } {
  const root = record(payload);
  const error = record(root?.error) ?? root;
  const text = (key: string): string | undefined => {
    const value = error?.[key];
    return typeof value === 'string' && value !== '' ? value : undefined;
  };
  return { message: text('message'), param: text('param'), code: text('code') ?? text('type') };
}

export function decodeResponsesError(status: number, body: string, headers: Headers): GatewayError {
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    payload = undefined;
  }
  const { message, param } = upstreamErrorMessage(payload);
  const kind = kindForUpstreamStatus(status);
  const retryAfterSeconds = retryAfterFrom(headers, message);
  return new GatewayError(kind, message ?? (body.trim() !== '' ? body.trim().slice(0, 500) : `upstream answered HTTP ${status}`), {
    ...(kind === 'overloaded' ? { status } : {}),
    ...(param !== undefined && kind === 'invalid_request' ? { param } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    upstream: { status, body },
  });
}

/** The kind of an error reported inside a 200 stream (`error` event, `response.failed`). */
export function kindForUpstreamErrorCode(code: string | undefined): ErrorKind {
  switch (code) {
    case 'rate_limit_exceeded':
      return 'rate_limit';
    case 'context_length_exceeded':
    case 'invalid_prompt':
    case 'invalid_request_error':
      return 'invalid_request';
    case 'server_is_overloaded':
    case 'overloaded':
      return 'overloaded';
    default:
      // Includes `insufficient_quota`: our upstream account's problem, not the caller's.
      return 'upstream_error';
  }
}
