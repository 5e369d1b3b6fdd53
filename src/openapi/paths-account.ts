/** The account surface, console auth and the dial test (interface sections 4.9, 8). */
import { MANAGEMENT_ERRORS, MANAGEMENT_SECURITY } from './management-errors';
import { jsonBody, jsonResponse, type Operation, type Paths } from './openapi-types';

const list = {
  type: 'object',
  properties: { data: { type: 'array', items: { type: 'object', additionalProperties: true } }, next_cursor: { type: ['string', 'null'] } },
  additionalProperties: true,
};
const object = { type: 'object', additionalProperties: true };
const paging = [
  { name: 'cursor', in: 'query', schema: { type: 'string' } },
  { name: 'limit', in: 'query', schema: { type: 'integer' } },
];
const usageFilters = [
  ...paging,
  ...['key_id', 'model', 'protocol', 'status', 'from', 'to'].map((name) => ({ name, in: 'query', schema: { type: 'string' } })),
];

/** The audit listings' filters (action may name a family: `key.`). */
export const auditFilters = [
  ...paging,
  ...['action', 'target_type', 'target_id', 'actor_type', 'from', 'to'].map((name) => ({ name, in: 'query', schema: { type: 'string' } })),
];

const get = (operationId: string, summary: string, body: Record<string, unknown>, parameters?: Operation['parameters']): Operation => ({
  summary,
  tags: ['account'],
  operationId,
  security: MANAGEMENT_SECURITY,
  ...(parameters ? { parameters } : {}),
  responses: { '200': jsonResponse(summary, body), ...MANAGEMENT_ERRORS },
});

export const ACCOUNT_PATHS: Paths = {
  '/api/v1/me/account': { get: get('getAccount', 'The account: balance, tier, limits', object) },
  '/api/v1/me/usage': { get: get('listUsage', 'Usage rows, newest first, cursor-paged', list, usageFilters) },
  '/api/v1/me/usage/{requestId}/routing': {
    get: get(
      'getRoutingDecision',
      'How one request was routed: each candidate account, why it was skipped or how it failed (stored for eventful requests only)',
      object,
      [{ name: 'requestId', in: 'path', required: true, schema: { type: 'string' } }],
    ),
  },
  '/api/v1/usage': { get: get('listUsageAlias', 'Usage rows (alias of /api/v1/me/usage)', list, usageFilters) },
  '/api/v1/me/billing/transactions': {
    get: get('listTransactions', 'Ledger entries: top-ups, refunds, adjustments, charges', list, paging),
  },
  '/api/v1/me/available-models': {
    get: get('listAvailableModels', "Models the account's groups route (with a key: only those its allowlist admits)", list),
  },
  '/api/v1/me/audit': {
    get: get(
      'listAudit',
      "The account's audit events, newest first, cursor-paged: key, money and grant changes, console logins (who, when, from where, before/after; never a secret)",
      list,
      auditFilters,
    ),
  },
  '/api/v1/auth/login': {
    post: {
      summary: 'Console login: sets the session cookie, returns the CSRF token',
      tags: ['console'],
      operationId: 'login',
      security: [],
      requestBody: jsonBody({
        type: 'object',
        required: ['email', 'password'],
        properties: { email: { type: 'string' }, password: { type: 'string' } },
      }),
      responses: { '200': jsonResponse('Logged in', object), ...MANAGEMENT_ERRORS },
    },
  },
  '/api/v1/auth/session': {
    get: { ...get('getSession', 'The current console session', object), tags: ['console'], security: [{ session: [] }] },
  },
  '/api/v1/auth/logout': {
    post: {
      summary: 'End the console session',
      tags: ['console'],
      operationId: 'logout',
      security: [{ session: [] }],
      responses: { '200': jsonResponse('Logged out', object), '204': { description: 'Logged out' }, ...MANAGEMENT_ERRORS },
    },
  },
  '/api/v1/dial/test': {
    post: {
      summary: 'Dial test: key × group × model × protocol, stage by stage (never billed)',
      tags: ['console'],
      operationId: 'dialTest',
      security: [{ session: [] }],
      requestBody: jsonBody({
        type: 'object',
        required: ['model'],
        properties: {
          key_id: { type: ['integer', 'string'] },
          group: { type: 'string' },
          model: { type: 'string' },
          protocol: { type: 'string' },
        },
        additionalProperties: true,
      }),
      responses: { '200': jsonResponse('The verdict per stage', object), ...MANAGEMENT_ERRORS },
    },
  },
};
