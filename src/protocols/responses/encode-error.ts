/**
 * A GatewayError in the OpenAI envelope `{error:{message,type,param,code}}`, with the lead's
 * Responses row of type/code per kind (DESIGN 9: unknown model → `model_not_found`, 402 →
 * `insufficient_balance`). The HTTP status is always the error's own.
 */
import type { ErrorKind, GatewayError } from '../../errors/gateway-error';
import type { RenderedError } from '../codec';

const ENVELOPE: Record<ErrorKind, { type: string; code: string }> = {
  invalid_request: { type: 'invalid_request_error', code: 'invalid_request_error' },
  unsupported_model: { type: 'invalid_request_error', code: 'model_not_found' },
  unsupported_feature: { type: 'invalid_request_error', code: 'unsupported_feature' },
  protocol_unavailable: { type: 'invalid_request_error', code: 'unsupported_protocol' },
  authentication: { type: 'authentication_error', code: 'invalid_api_key' },
  insufficient_balance: { type: 'insufficient_balance', code: 'insufficient_balance' },
  permission: { type: 'permission_error', code: 'permission_denied' },
  not_found: { type: 'not_found_error', code: 'not_found' },
  conflict: { type: 'invalid_request_error', code: 'conflict' },
  request_too_large: { type: 'invalid_request_error', code: 'request_too_large' },
  rate_limit: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  concurrency_limit: { type: 'rate_limit_error', code: 'concurrency_limit' },
  upstream_error: { type: 'api_error', code: 'api_error' },
  no_available_account: { type: 'api_error', code: 'api_error' },
  overloaded: { type: 'api_error', code: 'api_error' },
  unavailable: { type: 'api_error', code: 'api_error' },
  timeout: { type: 'api_error', code: 'api_error' },
  internal: { type: 'api_error', code: 'server_error' },
};

export interface ResponsesErrorFields {
  message: string;
  type: string;
  param: string | null;
  code: string;
}

export function responsesErrorFields(error: GatewayError): ResponsesErrorFields {
  if (error.contextOverflow) {
    // OpenAI's own Responses wording: Codex trims or compacts on this code.
    return { message: 'Your input exceeds the context window of this model. Please adjust your input and try again.', type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' };
  }
  const { type, code } = ENVELOPE[error.kind];
  return { message: error.message, type, param: error.param ?? null, code };
}

export function encodeResponsesError(error: GatewayError): RenderedError {
  const headers: Record<string, string> = { ...(error.headers ?? {}) };
  if (error.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(Math.max(0, Math.ceil(error.retryAfterSeconds)));
  }
  return { status: error.status, body: { error: responsesErrorFields(error) }, headers };
}
