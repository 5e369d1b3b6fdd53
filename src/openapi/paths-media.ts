/** Images (synchronous) and async tasks (video, batch images), interface sections 6–7. */
import { MANAGEMENT_ERRORS } from './management-errors';
import { errorRef, jsonBody, jsonResponse, ref, type Operation, type Paths } from './openapi-types';

const security: Operation['security'] = [{ bearer: [] }, { apiKeyHeader: [] }];
const taskId = { type: 'object', required: ['task_id'], properties: { task_id: { type: 'string' } } };
const imagesAnswer = {
  type: 'object',
  required: ['created', 'data'],
  properties: {
    created: { type: 'integer' },
    data: {
      type: 'array',
      items: { type: 'object', properties: { url: { type: 'string' }, b64_json: { type: 'string' }, revised_prompt: { type: 'string' } } },
    },
  },
};
const ERRORS = { ...MANAGEMENT_ERRORS, '409': errorRef('Conflict') };
/** docs/tasks.md: the same key and body within 24 h replay the first answer, charged once. */
const idempotencyKey: NonNullable<Operation['parameters']> = [
  {
    name: 'Idempotency-Key',
    in: 'header',
    schema: { type: 'string', maxLength: 255 },
    description:
      'Replays the first answer of the same key and body (24 h, per API key, charged once); another body gets 422; a retry while the first runs waits (tasks) or gets 409 (images).',
  },
];
const IDEMPOTENT_ERRORS = { '409': errorRef('Conflict'), '422': errorRef('Unprocessable') };

export const MEDIA_PATHS: Paths = {
  '/v1/images/generations': {
    post: {
      summary: 'Generate images (OpenAI-style body; image models of families 2 and 3)',
      tags: ['images'],
      operationId: 'createImage',
      security,
      parameters: idempotencyKey,
      requestBody: jsonBody({
        type: 'object',
        required: ['model', 'prompt'],
        properties: {
          model: { type: 'string' },
          prompt: { type: 'string' },
          n: { type: 'integer' },
          size: { type: 'string' },
          quality: { type: 'string' },
          response_format: { enum: ['url', 'b64_json'] },
        },
        additionalProperties: true,
      }),
      responses: { '200': jsonResponse('Images', imagesAnswer), ...MANAGEMENT_ERRORS, ...IDEMPOTENT_ERRORS },
    },
  },
  '/v1/images/edits': {
    post: {
      summary: 'Edit an image (multipart form)',
      tags: ['images'],
      operationId: 'editImage',
      security,
      parameters: idempotencyKey,
      requestBody: {
        required: true,
        content: {
          'multipart/form-data': {
            schema: {
              type: 'object',
              required: ['model', 'prompt', 'image'],
              properties: {
                model: { type: 'string' },
                prompt: { type: 'string' },
                image: { type: 'string', contentEncoding: 'binary' },
                mask: { type: 'string', contentEncoding: 'binary' },
                n: { type: 'integer' },
                size: { type: 'string' },
              },
            },
          },
        },
      },
      responses: { '200': jsonResponse('Images', imagesAnswer), ...MANAGEMENT_ERRORS, ...IDEMPOTENT_ERRORS },
    },
  },
  '/v1/tasks/submit': {
    post: {
      summary: 'Submit a video or batch image task (holds its estimated cost)',
      tags: ['tasks'],
      operationId: 'submitTask',
      security,
      parameters: idempotencyKey,
      requestBody: jsonBody({
        type: 'object',
        required: ['model'],
        properties: {
          model: { type: 'string' },
          prompt: { type: 'string' },
          prompts: { type: 'array', items: { type: 'string' } },
          duration_seconds: { type: 'integer' },
          resolution: { type: 'string' },
          aspect_ratio: { type: 'string' },
          image: { type: 'string' },
        },
        additionalProperties: true,
      }),
      responses: { '200': jsonResponse('Queued', ref('Task')), ...ERRORS, ...IDEMPOTENT_ERRORS },
    },
  },
  '/v1/tasks/query': {
    post: {
      summary: "A task's state and result",
      tags: ['tasks'],
      operationId: 'queryTask',
      security,
      requestBody: jsonBody(taskId),
      responses: { '200': jsonResponse('The task', ref('Task')), ...ERRORS },
    },
  },
  '/v1/tasks/cancel': {
    post: {
      summary: 'Cancel a queued or running task (its hold is released)',
      tags: ['tasks'],
      operationId: 'cancelTask',
      security,
      requestBody: jsonBody(taskId),
      responses: { '200': jsonResponse('The task', ref('Task')), ...ERRORS },
    },
  },
  '/v1/tasks/stream/{taskId}': {
    get: {
      summary: "A task's events as Server-Sent Events (resumable with Last-Event-ID)",
      tags: ['tasks'],
      operationId: 'streamTask',
      security,
      parameters: [
        { name: 'taskId', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'last-event-id', in: 'header', schema: { type: 'string' } },
      ],
      responses: {
        '200': {
          description: 'Event stream: one event per state change, keepalive comments; ends after the terminal state',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
        ...ERRORS,
      },
    },
  },
};
