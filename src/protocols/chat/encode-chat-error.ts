/** Every GatewayError kind in the OpenAI envelope `{error:{message,type,param,code}}` (lead's table). */
import { assertNever } from '../../ir/assert-never';
import type { ContextOverflow, ErrorKind, GatewayError } from '../../errors/gateway-error';
import type { RenderedError } from '../codec';
import type { ChatErrorBody } from './chat-wire-types';

function typeAndCode(kind: ErrorKind): { type: string; code: string } {
  switch (kind) {
    case 'invalid_request': return { type: 'invalid_request_error', code: 'invalid_request_error' };
    case 'unsupported_model': return { type: 'invalid_request_error', code: 'unsupported_model' };
    case 'unsupported_feature': return { type: 'invalid_request_error', code: 'unsupported_feature' };
    case 'protocol_unavailable': return { type: 'invalid_request_error', code: 'unsupported_protocol' };
    case 'authentication': return { type: 'authentication_error', code: 'invalid_api_key' };
    case 'insufficient_balance': return { type: 'insufficient_balance', code: 'insufficient_balance' };
    case 'permission': return { type: 'permission_error', code: 'permission_denied' };
    case 'not_found': return { type: 'not_found_error', code: 'not_found' };
    case 'conflict': return { type: 'invalid_request_error', code: 'conflict' };
    case 'request_too_large': return { type: 'invalid_request_error', code: 'request_too_large' };
    case 'rate_limit': return { type: 'rate_limit_error', code: 'rate_limit_exceeded' };
    case 'concurrency_limit': return { type: 'rate_limit_error', code: 'concurrency_limit' };
    case 'upstream_error': return { type: 'api_error', code: 'api_error' };
    case 'no_available_account': return { type: 'api_error', code: 'api_error' };
    case 'overloaded': return { type: 'api_error', code: 'api_error' };
    case 'unavailable': return { type: 'api_error', code: 'api_error' };
    case 'timeout': return { type: 'api_error', code: 'api_error' };
    case 'internal': return { type: 'api_error', code: 'server_error' };
    default: return assertNever(kind, 'error kind');
  }
}

/** OpenAI's Chat wording for a prompt over the model's context window. */
function contextLengthMessage({ inputTokens, maxTokens }: ContextOverflow): string {
  if (inputTokens === undefined || maxTokens === undefined) return "This model's maximum context length was exceeded. Please reduce the length of the messages.";
  return `This model's maximum context length is ${maxTokens} tokens. However, your messages resulted in ${inputTokens} tokens. Please reduce the length of the messages.`;
}

/** The envelope body, shared by the HTTP error and the mid-stream error frame. */
export function chatErrorBody(error: GatewayError): ChatErrorBody {
  if (error.contextOverflow) {
    return { error: { message: contextLengthMessage(error.contextOverflow), type: 'invalid_request_error', param: 'messages', code: 'context_length_exceeded' } };
  }
  const { type, code } = typeAndCode(error.kind);
  return { error: { message: error.message, type, param: error.param ?? null, code } };
}

export function encodeChatError(error: GatewayError): RenderedError {
  const headers: Record<string, string> = { ...(error.headers ?? {}) };
  if (error.retryAfterSeconds !== undefined) {
    headers['retry-after'] = String(Math.max(0, Math.ceil(error.retryAfterSeconds)));
  }
  return { status: error.status, body: { ...chatErrorBody(error) }, headers };
}
