/**
 * The counting endpoints of the three APIs that offer one: Messages `POST /v1/messages/count_tokens`,
 * Generate-Content `POST /v1beta/models/{model}:countTokens`, Responses `POST /v1/responses/input_tokens`.
 * Each reads its body with the same parser (and rules) as the inference endpoint and answers the
 * input tokens that inference would bill, with the simulator's fixed tokenizer. Free, nothing stored.
 */
import { totalInputTokens } from '../answer/conversation';
import type { SimContext } from '../http/context';
import { sendJson } from '../http/send';
import { isRecord } from '../json';
import { parseGenerateContentRequest } from '../generate-content/parse-generate-content-request';
import { parseMessagesRequest } from '../messages/parse-messages-request';
import { parseResponsesRequest } from '../responses/parse-responses-request';
import { anthropicInvalid, googleInvalid, openaiInvalid } from '../sim-error';

/** count_tokens takes no `max_tokens`; the inference parser needs one above any thinking budget. */
export function handleMessagesCountTokens(context: SimContext, body: unknown, modelName: string): void {
  if (!isRecord(body)) throw anthropicInvalid('Request body must be a JSON object');
  if (body.stream !== undefined) throw anthropicInvalid('stream: Extra inputs are not permitted');
  const model = context.state.models.find('messages', modelName);
  const parsed = parseMessagesRequest(
    { ...body, max_tokens: body.max_tokens ?? model?.maxOutputTokens ?? 1 },
    context.state.models,
    modelName,
  );
  sendJson(context, 200, { input_tokens: totalInputTokens(parsed.conversation) });
}

/** `{contents}` alone, or `{generateContentRequest: {model, contents, systemInstruction, tools, …}}`. */
export function handleGenerateContentCountTokens(context: SimContext, body: unknown, modelName: string): void {
  if (!isRecord(body)) throw googleInvalid('Invalid JSON payload received.');
  const inner = body.generateContentRequest;
  if (inner !== undefined && body.contents !== undefined) {
    throw googleInvalid('contents and generateContentRequest cannot both be set.');
  }
  const request = isRecord(inner) ? inner : { contents: body.contents };
  const parsed = parseGenerateContentRequest(request, context.state.models, modelName, 'generateContent');
  sendJson(context, 200, {
    totalTokens: totalInputTokens(parsed.conversation),
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: totalInputTokens(parsed.conversation) }],
  });
}

export function handleResponsesInputTokens(context: SimContext, body: unknown, modelName: string): void {
  if (!isRecord(body)) throw openaiInvalid('Invalid body: expected a JSON object.');
  if (body.stream !== undefined) throw openaiInvalid("Unknown parameter: 'stream'.", 'stream', 'unknown_parameter');
  // The parser only reads stored responses (a `previous_response_id`); counting stores nothing.
  const { state } = context;
  const parsed = parseResponsesRequest(body, state.models, modelName, { responses: state.responses, itemIds: state.responseItemIds });
  sendJson(context, 200, { object: 'response.input_tokens', input_tokens: totalInputTokens(parsed.conversation) });
}
