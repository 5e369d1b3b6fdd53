/**
 * A GatewayError in the OpenAI envelope `{error:{message,type,param,code}}`, with the lead's
 * Responses row of type/code per kind (DESIGN 9: unknown model → `model_not_found`, 402 →
 * `insufficient_balance`). The HTTP status is always the error's own.
 */
import { errorHeaders } from '../../errors/error-headers';
import type { ErrorKind, GatewayError } from '../../errors/gateway-error';
import { OPENAI_TYPE_AND_CODE } from '../shared/openai-error-type';
import type { RenderedError } from '../codec';

/** OpenAI's Responses names an unknown model `model_not_found`; every other kind as in the shared table. */
const ENVELOPE: Readonly<Record<ErrorKind, { type: string; code: string }>> = {
  ...OPENAI_TYPE_AND_CODE,
  unsupported_model: { type: 'invalid_request_error', code: 'model_not_found' },
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
    return {
      message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
      type: 'invalid_request_error',
      param: 'input',
      code: 'context_length_exceeded',
    };
  }
  const { type, code } = ENVELOPE[error.kind];
  return { message: error.message, type, param: error.param ?? null, code };
}

export function encodeResponsesError(error: GatewayError): RenderedError {
  return { status: error.status, body: { error: responsesErrorFields(error) }, headers: errorHeaders(error) };
}
