/** GatewayError → the Messages error envelope `{type:'error', error:{type, message}}` (lead's table). */
import type { ContextOverflow, ErrorKind, GatewayError } from '../../errors/gateway-error';
import { errorHeaders } from '../../errors/error-headers';
import type { RenderedError } from '../codec';

const MESSAGES_ERROR_TYPE: Record<ErrorKind, string> = {
  invalid_request: 'invalid_request_error',
  unsupported_model: 'unsupported_model',
  unsupported_feature: 'unsupported_feature',
  protocol_unavailable: 'invalid_request_error',
  authentication: 'authentication_error',
  insufficient_balance: 'insufficient_credits',
  permission: 'permission_error',
  not_found: 'not_found_error',
  conflict: 'invalid_request_error',
  request_too_large: 'request_too_large',
  rate_limit: 'rate_limit_error',
  concurrency_limit: 'rate_limit_error',
  upstream_error: 'api_error',
  no_available_account: 'api_error',
  overloaded: 'overloaded_error',
  unavailable: 'overloaded_error',
  timeout: 'api_error',
  internal: 'api_error',
};

export function messagesErrorType(kind: ErrorKind): string {
  return MESSAGES_ERROR_TYPE[kind];
}

/** Anthropic's own words for a context overflow: what Claude Code's compact-and-retry matches on. */
function promptTooLong(overflow: ContextOverflow): string {
  const { inputTokens, maxTokens } = overflow;
  return inputTokens !== undefined && maxTokens !== undefined
    ? `prompt is too long: ${inputTokens} tokens > ${maxTokens} maximum`
    : 'prompt is too long';
}

/** The body shared by the HTTP error and the mid-stream `event: error` frame. */
export function messagesErrorBody(error: GatewayError): { type: 'error'; error: { type: string; message: string } } {
  if (error.contextOverflow)
    return { type: 'error', error: { type: 'invalid_request_error', message: promptTooLong(error.contextOverflow) } };
  return { type: 'error', error: { type: messagesErrorType(error.kind), message: error.message } };
}

export function encodeMessagesError(error: GatewayError): RenderedError {
  // The SDKs read whole seconds from `retry-after`: rounded up, so a client never retries early.
  return { status: error.status, body: messagesErrorBody(error), headers: errorHeaders(error) };
}
