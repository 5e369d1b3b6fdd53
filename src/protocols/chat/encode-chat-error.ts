/** Every GatewayError kind in the OpenAI envelope `{error:{message,type,param,code}}` (lead's table). */
import { errorHeaders } from '../../errors/error-headers';
import type { ContextOverflow, GatewayError } from '../../errors/gateway-error';
import { OPENAI_TYPE_AND_CODE } from '../shared/openai-error-type';
import type { RenderedError } from '../codec';
import type { ChatErrorBody } from './chat-wire-types';

/** OpenAI's Chat wording for a prompt over the model's context window. */
function contextLengthMessage({ inputTokens, maxTokens }: ContextOverflow): string {
  if (inputTokens === undefined || maxTokens === undefined)
    return "This model's maximum context length was exceeded. Please reduce the length of the messages.";
  return `This model's maximum context length is ${maxTokens} tokens. However, your messages resulted in ${inputTokens} tokens. Please reduce the length of the messages.`;
}

/** The envelope body, shared by the HTTP error and the mid-stream error frame. */
export function chatErrorBody(error: GatewayError): ChatErrorBody {
  if (error.contextOverflow) {
    return {
      error: {
        message: contextLengthMessage(error.contextOverflow),
        type: 'invalid_request_error',
        param: 'messages',
        code: 'context_length_exceeded',
      },
    };
  }
  const { type, code } = OPENAI_TYPE_AND_CODE[error.kind];
  return { error: { message: error.message, type, param: error.param ?? null, code } };
}

export function encodeChatError(error: GatewayError): RenderedError {
  return { status: error.status, body: { ...chatErrorBody(error) }, headers: errorHeaders(error) };
}
