/** Token counting in each protocol's own shape (issue 12): free, never admitted or billed. */
import { errorRef, jsonBody, jsonResponse, type Operation, type Paths } from './openapi-types';

const TOKEN_COUNT_HEADER = {
  'x-gateway-token-count': {
    schema: { enum: ['upstream', 'estimate'] },
    description: 'counted by the upstream, or estimated from the request',
  },
};
const open = { type: 'object', additionalProperties: true };

function counter(
  operationId: string,
  summary: string,
  security: Operation['security'],
  answer: Record<string, unknown>,
  errors: Record<string, unknown>,
  parameters?: Operation['parameters'],
): Operation {
  const ok = jsonResponse(summary, answer);
  return {
    summary,
    tags: ['inference'],
    operationId,
    security,
    ...(parameters ? { parameters } : {}),
    description: "Free and not rate-limited. Takes the same body as the protocol's inference call.",
    requestBody: jsonBody(open),
    responses: { '200': { ...ok, headers: TOKEN_COUNT_HEADER }, ...errors },
  };
}

const OPENAI_ERRORS = { '400': errorRef('BadRequest'), '401': errorRef('Unauthorized'), '500': errorRef('ServerError') };
const googleCount = (operationId: string): Operation =>
  counter(
    operationId,
    'Count the input tokens of a Generate-Content request',
    [{ keyQuery: [] }, { googApiKey: [] }, { bearer: [] }],
    { type: 'object', required: ['totalTokens'], properties: { totalTokens: { type: 'integer' } } },
    { default: errorRef('GoogleErrors') },
    [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }],
  );

export const COUNT_TOKENS_PATHS: Paths = {
  '/v1/messages/count_tokens': {
    post: counter(
      'countMessageTokens',
      'Count the input tokens of a Messages request',
      [{ apiKeyHeader: [] }, { bearer: [] }],
      { type: 'object', required: ['input_tokens'], properties: { input_tokens: { type: 'integer' } } },
      { default: errorRef('MessagesErrors') },
    ),
  },
  '/v1/responses/input_tokens': {
    post: counter(
      'countResponseInputTokens',
      'Count the input tokens of a Responses request',
      [{ bearer: [] }],
      {
        type: 'object',
        required: ['object', 'input_tokens'],
        properties: { object: { const: 'response.input_tokens' }, input_tokens: { type: 'integer' } },
      },
      OPENAI_ERRORS,
    ),
  },
  '/v1beta/models/{model}:countTokens': { post: googleCount('countGenerateContentTokens') },
  '/v1/models/{model}:countTokens': { post: googleCount('countGenerateContentTokensV1') },
};
