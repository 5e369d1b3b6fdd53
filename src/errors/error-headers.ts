/** The one writer of an error answer's headers: the error's own, plus `retry-after` in whole seconds when it has a hint. */
import type { GatewayError } from './gateway-error';

export function errorHeaders(error: GatewayError): Record<string, string> {
  const headers: Record<string, string> = { ...(error.headers ?? {}) };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.max(0, Math.ceil(error.retryAfterSeconds)));
  return headers;
}
