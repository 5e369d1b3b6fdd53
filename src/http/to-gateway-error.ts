/**
 * Anything thrown → a GatewayError. Bad input the parsers catch becomes a 400, an unreachable Redis or
 * PostgreSQL a 503 `unavailable` (retryable), and anything else a generic 500 without internals.
 */
import { failedDependency } from '../errors/dependency-failure';
import { GatewayError, isGatewayError } from '../errors/gateway-error';
import { UNSTORABLE_TEXT_MESSAGE } from './storable-text';

interface HttpLibraryError {
  type?: string;
  status?: number;
  statusCode?: number;
  expose?: boolean;
  code?: unknown;
}

/**
 * PostgreSQL's refusals of text it cannot hold (U+0000, an unpaired surrogate): a value the caller
 * sent that no check stopped (an identifier looked up as is). The caller's input, so a 400, not a 500.
 */
const UNSTORABLE_TEXT_CODES = new Set(['22021', '22P05']);

/** Seconds a client is asked to wait when a dependency of the gateway is down. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 2;

export function malformedPath(cause?: unknown): GatewayError {
  return new GatewayError('invalid_request', 'malformed percent-encoding in the request path', { cause });
}

export function toGatewayError(error: unknown): GatewayError {
  if (isGatewayError(error)) return error;
  // decodeURIComponent on a path segment (express's param decoding, or ours).
  if (error instanceof URIError) return malformedPath(error);
  const httpError = error as HttpLibraryError;
  if (httpError?.type === 'entity.too.large') return new GatewayError('request_too_large', 'request body too large');
  if (httpError?.type === 'entity.parse.failed') return new GatewayError('invalid_request', 'request body is not valid JSON');
  if (httpError?.type === 'encoding.unsupported' || httpError?.type === 'charset.unsupported') {
    return new GatewayError('invalid_request', 'unsupported request body encoding');
  }
  if (typeof httpError?.code === 'string' && UNSTORABLE_TEXT_CODES.has(httpError.code) && error instanceof Error && 'severity' in error) {
    return new GatewayError('invalid_request', `an identifier or text in the request ${UNSTORABLE_TEXT_MESSAGE}`, { cause: error });
  }
  const status = httpError?.status ?? httpError?.statusCode;
  // Express's router answers a path it cannot decode with a 400 that has no `expose`.
  if (status === 400)
    return new GatewayError('invalid_request', httpError.expose ? 'malformed request body' : 'malformed request path', { cause: error });
  const dependency = failedDependency(error);
  if (dependency) {
    return new GatewayError('unavailable', 'the service is temporarily unavailable; retry shortly', {
      cause: error,
      retryAfterSeconds: DEPENDENCY_RETRY_AFTER_SECONDS,
    });
  }
  return new GatewayError('internal', 'internal error', { cause: error });
}
