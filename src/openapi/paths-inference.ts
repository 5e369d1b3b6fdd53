/**
 * The four inference protocols (interface sections 2–4). Request and response bodies are the
 * protocols' own shapes (only the fields the gateway reads are spelled out; the rest passes through);
 * streaming answers are Server-Sent Events in each protocol's own event grammar. Every answer carries
 * the accounting headers of interface section 8.
 */
import { errorRef, jsonBody, type JsonSchema, type Operation, type Paths } from './openapi-types';

const ACCOUNTING_HEADERS = {
  'x-request-id': { schema: { type: 'string' } },
  'x-request-cost-credits': { schema: { type: 'integer' }, description: 'whole (non-streamed) answers' },
  'x-quota-remaining-credits': { schema: { type: 'integer' } },
  'x-ratelimit-remaining': { schema: { type: 'string' } },
  'x-gateway-warnings': { schema: { type: 'string' }, description: 'fields that could not cross a translation' },
};

const message = { type: 'object', required: ['role', 'content'], properties: { role: { type: 'string' }, content: {} } };
const open = (schema: JsonSchema): JsonSchema => ({ ...schema, additionalProperties: true });

function inference(options: {
  operationId: string;
  summary: string;
  security: Operation['security'];
  request: JsonSchema;
  response: JsonSchema;
  streamNote: string;
  errors: Record<string, unknown>;
  parameters?: Operation['parameters'];
}): Operation {
  return {
    summary: options.summary,
    tags: ['inference'],
    operationId: options.operationId,
    security: options.security,
    description: `Streaming: ${options.streamNote}. Billed once on success at the catalog's prices; any non-2xx answer is free.`,
    ...(options.parameters ? { parameters: options.parameters } : {}),
    requestBody: jsonBody(options.request),
    responses: {
      '200': {
        description: 'The answer (JSON), or an event stream when streaming was asked for',
        headers: ACCOUNTING_HEADERS,
        content: { 'application/json': { schema: options.response }, 'text/event-stream': { schema: { type: 'string' } } },
      },
      ...options.errors,
    },
  };
}

const OPENAI_ERRORS = {
  '400': errorRef('BadRequest'),
  '401': errorRef('Unauthorized'),
  '403': errorRef('Forbidden'),
  '429': errorRef('TooManyRequests'),
  '500': errorRef('ServerError'),
};

const generateContent = (stream: boolean): Operation =>
  inference({
    operationId: stream ? 'streamGenerateContent' : 'generateContent',
    summary: stream ? 'Generate-Content, streamed (?alt=sse)' : 'Generate-Content (family 3)',
    security: [{ keyQuery: [] }, { googApiKey: [] }, { bearer: [] }],
    parameters: [
      { name: 'model', in: 'path', required: true, schema: { type: 'string' } },
      ...(stream ? [{ name: 'alt', in: 'query', schema: { const: 'sse' } }] : []),
    ],
    request: open({
      type: 'object',
      required: ['contents'],
      properties: {
        contents: { type: 'array', items: open({ type: 'object', properties: { role: { type: 'string' }, parts: { type: 'array' } } }) },
        systemInstruction: { type: 'object' },
        generationConfig: { type: 'object' },
        tools: { type: 'array' },
      },
    }),
    response: open({
      type: 'object',
      properties: { candidates: { type: 'array' }, usageMetadata: { type: 'object' }, modelVersion: { type: 'string' } },
    }),
    streamNote: stream ? 'always; each `data:` line is a GenerateContentResponse chunk' : 'use :streamGenerateContent',
    errors: { default: errorRef('GoogleErrors') },
  });

export const INFERENCE_PATHS: Paths = {
  '/v1/messages': {
    post: inference({
      operationId: 'createMessage',
      summary: 'Messages (any family whose row allows it)',
      security: [{ apiKeyHeader: [] }, { bearer: [] }],
      parameters: [
        {
          name: 'anthropic-version',
          in: 'header',
          required: true,
          schema: { type: 'string', examples: ['2023-06-01'] },
          description: 'or messages-version',
        },
      ],
      request: open({
        type: 'object',
        required: ['model', 'max_tokens', 'messages'],
        properties: {
          model: { type: 'string' },
          max_tokens: { type: 'integer' },
          messages: { type: 'array', items: message },
          system: {},
          stream: { type: 'boolean' },
          tools: { type: 'array' },
          thinking: { type: 'object' },
        },
      }),
      response: open({
        type: 'object',
        required: ['id', 'type', 'role', 'content', 'usage'],
        properties: {
          id: { type: 'string' },
          type: { const: 'message' },
          role: { const: 'assistant' },
          content: { type: 'array' },
          stop_reason: { type: ['string', 'null'] },
          usage: { type: 'object' },
        },
      }),
      streamNote: '`stream: true`; events message_start, content_block_*, message_delta, message_stop, ping',
      errors: { default: errorRef('MessagesErrors') },
    }),
  },
  '/v1/chat/completions': {
    post: inference({
      operationId: 'createChatCompletion',
      summary: 'Chat Completions (every family)',
      security: [{ bearer: [] }],
      request: open({
        type: 'object',
        required: ['model', 'messages'],
        properties: {
          model: { type: 'string' },
          messages: { type: 'array', items: message },
          stream: { type: 'boolean' },
          stream_options: { type: 'object' },
          max_tokens: { type: 'integer' },
          max_completion_tokens: { type: 'integer' },
          tools: { type: 'array' },
        },
      }),
      response: open({
        type: 'object',
        required: ['id', 'object', 'choices'],
        properties: {
          id: { type: 'string' },
          object: { const: 'chat.completion' },
          model: { type: 'string' },
          choices: { type: 'array' },
          usage: { type: 'object' },
        },
      }),
      streamNote:
        '`stream: true`; `chat.completion.chunk` objects, then `data: [DONE]` (usage in the last chunk with stream_options.include_usage)',
      errors: OPENAI_ERRORS,
    }),
  },
  '/v1/responses': {
    get: {
      summary: 'Responses over WebSocket (Codex): upgrade, then response.create messages answered with the stream events',
      tags: ['inference'],
      operationId: 'responsesWebSocket',
      security: [{ bearer: [] }],
      description:
        'Send with `Upgrade: websocket` and `Authorization: Bearer <key>`. Each `response.create` text frame (a POST body; ' +
        '`generate: false` for a free warm-up) is answered with the Responses stream events as text frames, and an error with ' +
        '`{type: "error", status, error}`. Billed per response. Without an upgrade: 426.',
      responses: {
        '101': { description: 'Switched to the WebSocket protocol' },
        '401': errorRef('Unauthorized'),
        '426': errorRef('BadRequest'),
      },
    },
    post: inference({
      operationId: 'createResponse',
      summary: 'Responses (families 1–3), chaining with previous_response_id',
      security: [{ bearer: [] }],
      request: open({
        type: 'object',
        required: ['model', 'input'],
        properties: {
          model: { type: 'string' },
          input: {},
          instructions: { type: 'string' },
          previous_response_id: { type: 'string' },
          stream: { type: 'boolean' },
          max_output_tokens: { type: 'integer' },
          tools: { type: 'array' },
        },
      }),
      response: open({
        type: 'object',
        required: ['id', 'object', 'output'],
        properties: {
          id: { type: 'string' },
          object: { const: 'response' },
          status: { type: 'string' },
          output: { type: 'array' },
          usage: { type: 'object' },
        },
      }),
      streamNote: '`stream: true`; typed events response.created … response.completed',
      errors: OPENAI_ERRORS,
    }),
  },
  '/v1/responses/compact': {
    post: inference({
      operationId: 'compactResponse',
      summary: "Remote compaction (Codex's): the conversation as one compaction item",
      security: [{ bearer: [] }],
      request: open({
        type: 'object',
        required: ['model', 'input'],
        properties: { model: { type: 'string' }, input: { type: 'array' }, instructions: { type: 'string' }, tools: { type: 'array' } },
      }),
      response: open({
        type: 'object',
        required: ['output'],
        properties: {
          id: { type: 'string' },
          object: { const: 'response.compaction' },
          output: {
            type: 'array',
            description: "one `compaction` item: a native upstream's own, or the gateway's sealed summary (translated families)",
          },
          usage: { type: 'object' },
        },
      }),
      streamNote: 'never (a whole answer)',
      errors: OPENAI_ERRORS,
    }),
  },
  '/v1beta/models/{model}:generateContent': { post: generateContent(false) },
  '/v1beta/models/{model}:streamGenerateContent': { post: generateContent(true) },
  // The same two under /v1 (Google's stable path), served identically.
  '/v1/models/{model}:generateContent': { post: { ...generateContent(false), operationId: 'generateContentV1' } },
  '/v1/models/{model}:streamGenerateContent': { post: { ...generateContent(true), operationId: 'streamGenerateContentV1' } },
};
