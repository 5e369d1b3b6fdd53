import { assertNever } from '../../ir/assert-never';
import type { ContextOverflow, ErrorKind, GatewayError } from '../../errors/gateway-error';
import { errorHeaders } from '../../errors/error-headers';
import type { RenderedError } from '../codec';

/** The google.rpc status name a Generate-Content client expects for each kind (lead's table). */
export function generateContentErrorStatus(kind: ErrorKind): string {
  switch (kind) {
    case 'invalid_request':
    case 'unsupported_feature':
    case 'protocol_unavailable':
    case 'request_too_large':
      return 'INVALID_ARGUMENT';
    case 'unsupported_model':
    case 'not_found':
      return 'NOT_FOUND';
    case 'authentication':
      return 'UNAUTHENTICATED';
    case 'insufficient_balance':
    case 'rate_limit':
    case 'concurrency_limit':
      return 'RESOURCE_EXHAUSTED';
    case 'permission':
      return 'PERMISSION_DENIED';
    case 'conflict':
      return 'ABORTED';
    case 'upstream_error':
    case 'internal':
      return 'INTERNAL';
    case 'no_available_account':
    case 'overloaded':
    case 'unavailable':
      return 'UNAVAILABLE';
    case 'timeout':
      return 'DEADLINE_EXCEEDED';
    default:
      return assertNever(kind, 'error kind');
  }
}

/** HTTP status: the error's own, except an unknown model, which Generate-Content reports as 404. */
export function generateContentErrorHttpStatus(error: GatewayError): number {
  return error.kind === 'unsupported_model' ? 404 : error.status;
}

/** Google's wording for a prompt over the model's context window. */
function tokenLimitMessage({ inputTokens, maxTokens }: ContextOverflow, fallback: string): string {
  if (inputTokens === undefined || maxTokens === undefined)
    return /exceeds the maximum number of tokens/i.test(fallback)
      ? fallback
      : 'The input token count exceeds the maximum number of tokens allowed.';
  return `The input token count (${inputTokens}) exceeds the maximum number of tokens allowed (${maxTokens}).`;
}

/** The `{error: {code, message, status}}` body, also used as the mid-stream error frame. */
export function generateContentErrorBody(error: GatewayError): Record<string, unknown> {
  const code = generateContentErrorHttpStatus(error);
  const message = error.contextOverflow ? tokenLimitMessage(error.contextOverflow, error.message) : error.message;
  const body: Record<string, unknown> = { code, message, status: generateContentErrorStatus(error.kind) };
  if (error.retryAfterSeconds !== undefined) {
    // What the provider itself sends, so retry-aware clients find the delay where they look for it.
    body.details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${error.retryAfterSeconds}s` }];
  }
  return { error: body };
}

export function encodeGenerateContentError(error: GatewayError): RenderedError {
  return { status: generateContentErrorHttpStatus(error), body: generateContentErrorBody(error), headers: errorHeaders(error) };
}
