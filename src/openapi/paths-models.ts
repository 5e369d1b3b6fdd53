/** The model listing (interface section 9). */
import { MANAGEMENT_ERRORS } from './management-errors';
import { jsonResponse, ref, type Operation, type Paths } from './openapi-types';

const security: Operation['security'] = [{ bearer: [] }, { apiKeyHeader: [] }, { googApiKey: [] }, { keyQuery: [] }];

export const MODEL_PATHS: Paths = {
  '/v1/models': {
    get: {
      summary: "List the models the key's group can call (retired models are not listed)",
      tags: ['models'],
      operationId: 'listModels',
      security,
      parameters: [
        { name: 'capability', in: 'query', schema: { type: 'string' }, description: 'repeatable; logical AND' },
        { name: 'family', in: 'query', schema: { type: 'string' } },
        {
          name: 'client_version',
          in: 'query',
          schema: { type: 'string' },
          description: "Codex's catalog request: the answer is `{models: [...]}` in Codex's model-info shape",
        },
      ],
      responses: {
        '200': jsonResponse('Models', {
          oneOf: [
            {
              type: 'object',
              required: ['object', 'data'],
              properties: { object: { const: 'list' }, data: { type: 'array', items: ref('Model') } },
            },
            {
              type: 'object',
              required: ['models'],
              properties: { models: { type: 'array', items: { type: 'object', required: ['slug'], additionalProperties: true } } },
            },
          ],
        }),
        ...MANAGEMENT_ERRORS,
      },
    },
  },
  '/v1/models/{model}': {
    get: {
      summary: 'One model (slug or alias)',
      tags: ['models'],
      operationId: 'getModel',
      security,
      parameters: [{ name: 'model', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': jsonResponse('The model', ref('Model')), ...MANAGEMENT_ERRORS },
    },
  },
};
