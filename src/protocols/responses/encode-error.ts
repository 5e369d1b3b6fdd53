/**
 * A GatewayError in the OpenAI envelope `{error:{message,type,param,code}}`, with the lead's
 * Responses row of type/code per kind (DESIGN 9: unknown model → `model_not_found`, 402 →
 * `insufficient_balance`). The HTTP status is always the error's own.
 */
import type { GatewayError } from '../../errors/gateway-error';
import {
  openAiStyleErrorFields,
  renderOpenAiStyleError,
  type OpenAiStyleErrorDialect,
  type OpenAiStyleErrorFields,
} from '../shared/openai-error-envelope';
import type { RenderedError } from '../codec';

const RESPONSES_DIALECT: OpenAiStyleErrorDialect = {
  // OpenAI's Responses names an unknown model `model_not_found`; every other kind as in the shared table.
  codes: { unsupported_model: 'model_not_found' },
  // OpenAI's own Responses wording: Codex trims or compacts on this code.
  contextOverflow: () => ({
    message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
    param: 'input',
  }),
};

export function responsesErrorFields(error: GatewayError): OpenAiStyleErrorFields {
  return openAiStyleErrorFields(error, RESPONSES_DIALECT);
}

export function encodeResponsesError(error: GatewayError): RenderedError {
  return renderOpenAiStyleError(error, RESPONSES_DIALECT);
}
