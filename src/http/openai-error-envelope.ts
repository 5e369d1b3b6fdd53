/**
 * The envelope of the gateway's own surfaces (management, images, tasks, models):
 * OpenAI-style `{error: {message, type, param, code}}`, which every official SDK reads.
 */
import { errorHeaders } from '../errors/error-headers';
import type { GatewayError } from '../errors/gateway-error';
import { OPENAI_TYPE_AND_CODE } from '../protocols/shared/openai-error-type';
import type { RenderedError } from '../protocols/codec';

export function renderOpenAiStyleError(error: GatewayError): RenderedError {
  const { type, code } = OPENAI_TYPE_AND_CODE[error.kind];
  return {
    status: error.status,
    body: { error: { message: error.message, type, param: error.param ?? null, code } },
    headers: errorHeaders(error),
  };
}
