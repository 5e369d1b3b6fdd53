/** Every GatewayError kind in the OpenAI envelope `{error:{message,type,param,code}}`, in Chat's wording. */
import type { ContextOverflow, GatewayError } from '../../errors/gateway-error';
import type { RenderedError } from '../codec';
import { openAiStyleErrorFields, renderOpenAiStyleError, type OpenAiStyleErrorDialect } from '../shared/openai-error-envelope';
import type { ChatErrorBody } from './chat-wire-types';

/** OpenAI's Chat wording for a prompt over the model's context window. */
function contextLengthMessage({ inputTokens, maxTokens }: ContextOverflow): string {
  if (inputTokens === undefined || maxTokens === undefined)
    return "This model's maximum context length was exceeded. Please reduce the length of the messages.";
  return `This model's maximum context length is ${maxTokens} tokens. However, your messages resulted in ${inputTokens} tokens. Please reduce the length of the messages.`;
}

const CHAT_DIALECT: OpenAiStyleErrorDialect = {
  contextOverflow: (overflow) => ({ message: contextLengthMessage(overflow), param: 'messages' }),
};

/** The envelope body, shared by the HTTP error and the mid-stream error frame. */
export function chatErrorBody(error: GatewayError): ChatErrorBody {
  return { error: openAiStyleErrorFields(error, CHAT_DIALECT) };
}

export function encodeChatError(error: GatewayError): RenderedError {
  return renderOpenAiStyleError(error, CHAT_DIALECT);
}
