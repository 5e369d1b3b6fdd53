/**
 * The envelope of the gateway's own surfaces (management, images, tasks, models):
 * OpenAI-style `{error: {message, type, param, code}}`, which every official SDK reads.
 */
import type { ErrorKind, GatewayError } from '../errors/gateway-error';
import type { RenderedError } from '../protocols/codec';

const TYPE_AND_CODE: Record<ErrorKind, [string, string]> = {
  invalid_request: ['invalid_request_error', 'invalid_request_error'],
  unsupported_model: ['invalid_request_error', 'unsupported_model'],
  unsupported_feature: ['invalid_request_error', 'unsupported_feature'],
  protocol_unavailable: ['invalid_request_error', 'unsupported_protocol'],
  authentication: ['authentication_error', 'invalid_api_key'],
  insufficient_balance: ['insufficient_balance', 'insufficient_balance'],
  permission: ['permission_error', 'permission_denied'],
  not_found: ['not_found_error', 'not_found'],
  conflict: ['invalid_request_error', 'conflict'],
  request_too_large: ['invalid_request_error', 'request_too_large'],
  rate_limit: ['rate_limit_error', 'rate_limit_exceeded'],
  concurrency_limit: ['rate_limit_error', 'concurrency_limit'],
  upstream_error: ['api_error', 'api_error'],
  no_available_account: ['api_error', 'api_error'],
  overloaded: ['api_error', 'api_error'],
  unavailable: ['api_error', 'api_error'],
  timeout: ['api_error', 'api_error'],
  internal: ['api_error', 'server_error'],
};

export function renderOpenAiStyleError(error: GatewayError): RenderedError {
  const [type, code] = TYPE_AND_CODE[error.kind];
  const headers: Record<string, string> = { ...(error.headers ?? {}) };
  if (error.retryAfterSeconds !== undefined) headers['retry-after'] = String(Math.max(0, Math.ceil(error.retryAfterSeconds)));
  return { status: error.status, body: { error: { message: error.message, type, param: error.param ?? null, code } }, headers };
}
