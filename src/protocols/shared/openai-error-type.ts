/**
 * The one table of OpenAI-style `type` and `code` per error kind, for every envelope in OpenAI's
 * shape `{error: {message, type, param, code}}`: Chat Completions, Responses (which names an unknown
 * model `model_not_found`) and the gateway's own surfaces.
 */
import type { ErrorKind } from '../../errors/gateway-error';

export const OPENAI_TYPE_AND_CODE: Readonly<Record<ErrorKind, { type: string; code: string }>> = {
  invalid_request: { type: 'invalid_request_error', code: 'invalid_request_error' },
  unsupported_model: { type: 'invalid_request_error', code: 'unsupported_model' },
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
