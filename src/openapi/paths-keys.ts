/** Key management (interface section 4.x), under /api/v1/keys and its alias /v1/keys. */
import { MANAGEMENT_ERRORS, MANAGEMENT_SECURITY } from './management-errors';
import { errorRef, jsonBody, jsonResponse, ref, type Operation, type Paths } from './openapi-types';

const id = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
const keyFields = {
  type: 'object',
  additionalProperties: true,
  properties: {
    name: { type: 'string' },
    group_id: { type: ['integer', 'string'] },
    quota_usd: { type: ['number', 'null'] },
    expires_at: { type: ['string', 'null'] },
    limit_5h_usd: { type: ['number', 'null'] },
    limit_1d_usd: { type: ['number', 'null'] },
    limit_7d_usd: { type: ['number', 'null'] },
    ip_allowlist: { type: 'array', items: { type: 'string' } },
    ip_denylist: { type: 'array', items: { type: 'string' } },
    custom_key: { type: 'string' },
    status: { type: 'string' },
    allowed_models: {
      type: 'array',
      items: { type: 'string' },
      maxItems: 200,
      description:
        'Models the key may call: exact slugs (an alias is stored as its slug) or prefix* patterns; empty allows every model. Outside it: 403 permission_error "model not allowed for this key".',
    },
  },
};
const updateFields = {
  ...keyFields,
  properties: {
    ...keyFields.properties,
    group_id: {
      type: ['integer', 'string'],
      description: 'Moves the key to another routing group the account may use (403 permission_error naming the group otherwise)',
    },
  },
};
const ERRORS = { ...MANAGEMENT_ERRORS, '409': errorRef('Conflict') };
const op = (operationId: string, summary: string, extra: Partial<Operation> = {}): Operation => ({
  summary,
  tags: ['keys'],
  operationId,
  security: MANAGEMENT_SECURITY,
  responses: { '200': jsonResponse('The key', ref('Key')), ...ERRORS },
  ...extra,
});

function keyPaths(prefix: string, suffix: string): Paths {
  return {
    [prefix]: {
      get: op(`listKeys${suffix}`, "The account's keys (masked)", {
        responses: {
          '200': jsonResponse('Keys', {
            type: 'object',
            properties: { data: { type: 'array', items: ref('Key') } },
            additionalProperties: true,
          }),
          ...ERRORS,
        },
      }),
      post: op(`createKey${suffix}`, 'Create a key (the secret is shown once)', {
        requestBody: jsonBody(keyFields),
        responses: {
          '201': jsonResponse('The key with its secret', ref('Key')),
          '200': jsonResponse('The key with its secret', ref('Key')),
          ...ERRORS,
        },
      }),
    },
    [`${prefix}/{id}`]: {
      get: op(`getKey${suffix}`, 'One key (masked)', { parameters: id }),
      put: op(`updateKey${suffix}`, 'Update a key (or move it to another group)', { parameters: id, requestBody: jsonBody(updateFields) }),
      delete: op(`deleteKey${suffix}`, 'Delete a key (refused on every instance at once)', { parameters: id }),
    },
    [`${prefix}/{id}/reveal`]: { get: op(`revealKey${suffix}`, 'The full secret', { parameters: id }) },
    [`${prefix}/{id}/rotate`]: { post: op(`rotateKey${suffix}`, 'New secret; the old one stops working at once', { parameters: id }) },
  };
}

export const KEY_PATHS: Paths = { ...keyPaths('/api/v1/keys', ''), ...keyPaths('/v1/keys', 'V1') };
