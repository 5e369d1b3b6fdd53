/**
 * Shared components: the security schemes of interface section 5 and the error envelopes. Management
 * and OpenAI-shaped routes answer the OpenAI-style envelope; Messages its own; Generate-Content the
 * Google one.
 */
import type { JsonSchema } from './openapi-types';

const openAiError: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type'],
      properties: {
        message: { type: 'string' },
        type: {
          type: 'string',
          examples: [
            'invalid_request_error',
            'authentication_error',
            'permission_error',
            'not_found_error',
            'rate_limit_error',
            'api_error',
          ],
        },
        code: { type: ['string', 'null'], examples: ['unsupported_model', 'concurrency_limit', 'insufficient_quota'] },
        param: { type: ['string', 'null'] },
      },
    },
  },
};

const messagesError: JsonSchema = {
  type: 'object',
  required: ['type', 'error'],
  properties: {
    type: { const: 'error' },
    error: {
      type: 'object',
      required: ['type', 'message'],
      properties: { type: { type: 'string', examples: ['invalid_request_error', 'overloaded_error'] }, message: { type: 'string' } },
    },
    request_id: { type: 'string' },
  },
};

const googleError: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'status'],
      properties: {
        code: { type: 'integer' },
        message: { type: 'string' },
        status: { type: 'string', examples: ['INVALID_ARGUMENT', 'UNAUTHENTICATED', 'RESOURCE_EXHAUSTED'] },
        details: { type: 'array' },
      },
    },
  },
};

const errorResponse = (description: string, schema: string) => ({
  description,
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
});

export const COMPONENTS = {
  securitySchemes: {
    bearer: { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API key>' },
    apiKeyHeader: { type: 'apiKey', in: 'header', name: 'x-api-key' },
    googApiKey: { type: 'apiKey', in: 'header', name: 'x-goog-api-key' },
    keyQuery: { type: 'apiKey', in: 'query', name: 'key' },
    session: { type: 'apiKey', in: 'cookie', name: 'gw_session', description: 'Console session; state changes also need x-csrf-token' },
  },
  schemas: {
    OpenAIError: openAiError,
    MessagesError: messagesError,
    GoogleError: googleError,
    Model: {
      type: 'object',
      required: ['id', 'object', 'owned_by', 'family', 'capabilities', 'context_window', 'max_output_tokens', 'protocols'],
      properties: {
        id: { type: 'string' },
        object: { const: 'model' },
        owned_by: { type: 'string' },
        family: { type: 'string' },
        capabilities: { type: 'array', items: { type: 'string' } },
        context_window: { type: 'integer' },
        max_output_tokens: { type: 'integer' },
        input_modalities: { type: 'array', items: { type: 'string' } },
        output_modalities: { type: 'array', items: { type: 'string' } },
        pricing_url: { type: 'string' },
        created: { type: 'integer' },
        protocols: { type: 'array', items: { type: 'string', enum: ['messages', 'responses', 'chat', 'generate-content'] } },
      },
    },
    Key: {
      type: 'object',
      required: ['id', 'name'],
      properties: {
        id: { type: ['integer', 'string'] },
        name: { type: 'string' },
        key: { type: 'string', description: 'masked except on create and reveal' },
        group_id: { type: ['integer', 'string'] },
        quota_usd: { type: ['number', 'string', 'null'] },
        status: {
          type: 'string',
          enum: ['active', 'disabled', 'revoked', 'expired', 'group_not_granted'],
          description: "group_not_granted: the key's private routing group is no longer granted to the account",
        },
        allowed_models: {
          type: 'array',
          items: { type: 'string' },
          description: 'exact slugs or prefix* patterns; empty allows every model',
        },
        expires_at: { type: ['string', 'null'] },
        ip_allowlist: { type: 'array', items: { type: 'string' } },
        ip_denylist: { type: 'array', items: { type: 'string' } },
      },
      additionalProperties: true,
    },
    Task: {
      type: 'object',
      required: ['task_id', 'status'],
      properties: {
        task_id: { type: 'string' },
        status: { type: 'string', enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'] },
        estimated_credits: { type: 'integer' },
        result: { type: ['object', 'null'] },
        error: { type: ['object', 'null'] },
      },
      additionalProperties: true,
    },
  },
  responses: {
    BadRequest: errorResponse('Invalid request (400)', 'OpenAIError'),
    Unauthorized: errorResponse('Missing or invalid credential (401)', 'OpenAIError'),
    Forbidden: errorResponse('Not allowed (403)', 'OpenAIError'),
    NotFound: errorResponse('Not found (404)', 'OpenAIError'),
    Conflict: errorResponse('Conflict (409)', 'OpenAIError'),
    Unprocessable: errorResponse('Idempotency-Key reused with another body (422)', 'OpenAIError'),
    TooManyRequests: errorResponse('Limit reached (429), with Retry-After', 'OpenAIError'),
    ServerError: errorResponse('Upstream or gateway failure (5xx)', 'OpenAIError'),
    MessagesErrors: errorResponse('Any error, in the Messages envelope', 'MessagesError'),
    GoogleErrors: errorResponse('Any error, in the Google envelope', 'GoogleError'),
  },
};
