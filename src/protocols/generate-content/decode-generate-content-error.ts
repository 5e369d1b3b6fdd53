/**
 * A provider error → GatewayError: the kind from the HTTP status (one place decides it,
 * `kindForUpstreamStatus`), the provider's message, and the retry delay from `retry-after-ms`,
 * `retry-after` or the body's `google.rpc.RetryInfo.retryDelay`.
 */
import { GatewayError, kindForUpstreamStatus, type ContextOverflow } from '../../errors/gateway-error';
import { isRecord } from '../shared/read-json';
import { retryAfterSeconds as readRetryAfter, type HeaderBag } from '../shared/retry-after';

/** google.rpc status names → HTTP, for error frames inside a stream that carry no numeric code. */
const HTTP_FOR_STATUS: Record<string, number> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNKNOWN: 500,
  DATA_LOSS: 500,
  NOT_IMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

export function decodeGenerateContentError(status: number, body: string, headers: HeaderBag): GatewayError {
  let payload: unknown;
  try {
    payload = JSON.parse(body);
  } catch {
    payload = undefined;
  }
  // The JSON-array stream form wraps the error object in an array.
  if (Array.isArray(payload)) payload = payload.find((item) => isRecord(item) && isRecord(item.error));
  const error = isRecord(payload) && isRecord(payload.error) ? payload.error : undefined;
  const text = body.trim();
  const message =
    typeof error?.message === 'string' && error.message !== ''
      ? error.message
      : text !== '' && text.length <= 500 && error === undefined
        ? text
        : `upstream answered HTTP ${status}`;
  return buildError(status, message, error, headers, body);
}

/** An `{error: {code, message, status}}` frame met inside a 200 stream. */
export function generateContentStreamError(payload: Record<string, unknown>): GatewayError {
  const error = isRecord(payload.error) ? payload.error : {};
  const status =
    typeof error.code === 'number' && error.code >= 400 && error.code < 600
      ? error.code
      : typeof error.status === 'string'
        ? (HTTP_FOR_STATUS[error.status] ?? 500)
        : 500;
  const message = typeof error.message === 'string' && error.message !== '' ? error.message : 'the upstream stream failed';
  return buildError(status, message, error, {}, JSON.stringify(payload));
}

/**
 * Google answers a wrong API key with 400 INVALID_ARGUMENT and an ErrorInfo reason API_KEY_INVALID:
 * that is the gateway's credential failing, never the caller's request.
 */
function credentialRejected(details: unknown): boolean {
  return (
    Array.isArray(details) &&
    details.some((detail) => typeof detail === 'object' && detail !== null && (detail as { reason?: unknown }).reason === 'API_KEY_INVALID')
  );
}

const TOKEN_LIMIT = /input token count \((\d+)\) exceeds the maximum number of tokens allowed \((\d+)\)/i;

/** Google's overflow refusal: 400 INVALID_ARGUMENT "The input token count (N) exceeds the maximum number of tokens allowed (M)." */
export function generateContentContextOverflow(status: number, message: string): ContextOverflow | undefined {
  if (status !== 400) return undefined;
  const match = TOKEN_LIMIT.exec(message);
  if (match) return { inputTokens: Number(match[1]), maxTokens: Number(match[2]) };
  return /exceeds the maximum number of tokens allowed/i.test(message) ? {} : undefined;
}

function buildError(
  status: number,
  message: string,
  error: Record<string, unknown> | undefined,
  headers: HeaderBag,
  body: string,
): GatewayError {
  const contextOverflow = generateContentContextOverflow(status, message);
  if (contextOverflow) return new GatewayError('invalid_request', message, { contextOverflow, upstream: { status, body } });
  const kind = credentialRejected(error?.details) ? 'upstream_error' : kindForUpstreamStatus(status);
  const retryAfterSeconds = readRetryAfter(headers) ?? retryAfterFromDetails(error?.details);
  return new GatewayError(kind, message, {
    ...(kind === 'overloaded' ? { status } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    upstream: { status, body },
  });
}

function retryAfterFromDetails(details: unknown): number | undefined {
  if (!Array.isArray(details)) return undefined;
  for (const detail of details) {
    if (!isRecord(detail) || typeof detail['@type'] !== 'string' || !detail['@type'].endsWith('google.rpc.RetryInfo')) continue;
    const delay = detail.retryDelay;
    // A protobuf Duration in JSON: "34.4s".
    if (typeof delay === 'string') {
      const match = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
      if (match) return Number(match[1]);
    } else if (isRecord(delay) && (typeof delay.seconds === 'number' || typeof delay.seconds === 'string')) {
      return Number(delay.seconds) + (typeof delay.nanos === 'number' ? delay.nanos / 1e9 : 0);
    }
  }
  return undefined;
}
