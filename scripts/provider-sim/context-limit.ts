/**
 * The refusal each provider gives a prompt longer than the model's context window, in its own
 * status and words (Anthropic, OpenAI Chat and Responses, Google, and the OpenAI-compatible vendors
 * on Chat, each as their APIs say it). Only inference refuses: token counting counts any length. A
 * streamed Responses request is refused inside its stream instead, as OpenAI does (handle-responses.ts).
 */
import type { Endpoint, SimModel } from './models';
import { anthropicInvalid, googleInvalid, openaiError, SimHttpError } from './sim-error';

/** OpenAI's Responses wording, whole (a 400) or streamed (inside the stream: responses-answer.ts). */
export const RESPONSES_OVERFLOW_MESSAGE = 'Your input exceeds the context window of this model. Please adjust your input and try again.';

export function exceedsContext(model: SimModel, inputTokens: number): boolean {
  return inputTokens > model.contextWindow;
}

/** Throws the provider's overflow refusal when `inputTokens` exceed the model's context window. */
export function assertFitsContext(endpoint: Endpoint, model: SimModel, inputTokens: number): void {
  if (!exceedsContext(model, inputTokens)) return;
  throw overflowError(endpoint, model, inputTokens, model.contextWindow);
}

function overflowError(endpoint: Endpoint, model: SimModel, tokens: number, limit: number): SimHttpError {
  switch (endpoint) {
    case 'messages':
      return anthropicInvalid(`prompt is too long: ${tokens} tokens > ${limit} maximum`);
    case 'generate-content':
      return googleInvalid(`The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`);
    case 'responses':
      return openaiError(400, RESPONSES_OVERFLOW_MESSAGE, { param: 'input', code: 'context_length_exceeded' });
    default:
      return chatOverflow(model.vendor, tokens, limit);
  }
}

/** Chat Completions: OpenAI's wording, or the vendor's own where it differs. */
function chatOverflow(vendor: string, tokens: number, limit: number): SimHttpError {
  switch (vendor) {
    case 'deepseek':
      return openaiError(
        400,
        `This model's maximum context length is ${limit} tokens. However, you requested ${tokens} tokens (${tokens} in the messages, 0 in the completion). Please reduce the length of the messages or completion.`,
        { code: 'invalid_request_error' },
      );
    case 'mistral':
      return new SimHttpError(400, {
        object: 'error',
        message: `Prompt contains ${tokens} tokens and 0 draft tokens, too large for model with ${limit} maximum context length`,
        type: 'invalid_request_message_error',
        param: null,
        code: '3051',
      });
    case 'xai':
      return new SimHttpError(400, {
        code: 'Client specified an invalid argument',
        error: `This model's maximum prompt length is ${limit} but the request contains ${tokens} tokens.`,
      });
    case 'moonshot':
      return openaiError(400, `Invalid request: Your request exceeded model token limit: ${limit}`);
    case 'meta':
      return openaiError(400, 'Please reduce the length of the messages or completion.', {
        param: 'messages',
        code: 'context_length_exceeded',
      });
    default:
      return openaiError(
        400,
        `This model's maximum context length is ${limit} tokens. However, your messages resulted in ${tokens} tokens. Please reduce the length of the messages.`,
        { param: 'messages', code: 'context_length_exceeded' },
      );
  }
}
