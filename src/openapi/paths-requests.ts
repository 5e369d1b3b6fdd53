/** The request log (issue 22): the account's requests, one request's detail, figures; the operator's view across accounts. */
import { MANAGEMENT_ERRORS, MANAGEMENT_SECURITY } from './management-errors';
import { jsonBody, jsonResponse, type JsonSchema, type Operation, type Paths } from './openapi-types';

const nullable = (type: string) => ({ type: [type, 'null'] });
const requestRecord: JsonSchema = {
  type: 'object',
  properties: {
    object: { const: 'request' },
    request_id: { type: 'string' },
    account_id: { type: 'integer' },
    api_key_id: nullable('integer'),
    protocol: { type: 'string' },
    model: nullable('string'),
    upstream_account_id: nullable('integer'),
    status: { type: 'integer', description: 'The HTTP status the client got; 499 when it left before any was sent' },
    outcome: { enum: ['ok', 'error', 'aborted'] },
    error_class: {
      ...nullable('string'),
      description: 'The gateway refusal kind (invalid_request, rate_limit, …), upstream_* when an upstream caused it, client_abort',
    },
    duration_ms: { type: 'integer' },
    ttfb_ms: nullable('integer'),
    input_tokens: { type: 'integer' },
    output_tokens: { type: 'integer' },
    cost: { type: 'number' },
    cost_credits: { type: 'integer' },
    stream: { type: 'boolean' },
    replayed: { type: 'boolean' },
    warnings: { type: 'array', items: { type: 'string' } },
    has_bodies: { type: 'boolean' },
    provisional: {
      type: 'boolean',
      description:
        "The process that answered stopped before completing the record: the duration runs to the last byte; a stream's tokens and cost may be missing",
    },
    created_at: { type: 'string', format: 'date-time' },
  },
  additionalProperties: true,
};
const list: JsonSchema = {
  type: 'object',
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: requestRecord },
    has_more: { type: 'boolean' },
    next_cursor: nullable('string'),
  },
};
const detail: JsonSchema = {
  allOf: [
    requestRecord,
    {
      type: 'object',
      properties: {
        routing: { ...nullable('object'), description: 'The routing decision chain (eventful routing only)' },
        usage: nullable('object'),
        ledger_entries: { type: 'array', items: { type: 'object' } },
        bodies: { ...nullable('object'), description: 'Redacted, size-capped request and response bodies, when the account keeps them' },
      },
    },
  ],
};
const stats: JsonSchema = {
  type: 'object',
  properties: {
    object: { const: 'request_stats' },
    by: { enum: ['model', 'upstream_account'] },
    data: { type: 'array', items: { type: 'object' } },
  },
  additionalProperties: true,
};

const query = (name: string, description: string, type = 'string') => ({ name, in: 'query', description, schema: { type } });
const filters = [
  query('cursor', 'next_cursor of the previous page'),
  query('limit', '1 to 100 (default 20)', 'integer'),
  query('status', 'ok, error, aborted; an HTTP status such as 429; or a class such as 4xx'),
  query('error_class', 'e.g. rate_limit, upstream_error, client_abort'),
  query('model', 'model id'),
  query('api_key_id', 'key id', 'integer'),
  query('protocol', 'messages, chat, responses, generate-content'),
  query('upstream_account_id', 'upstream account id', 'integer'),
  query('since', 'ISO 8601 or Unix seconds, inclusive'),
  query('until', 'ISO 8601 or Unix seconds, exclusive'),
];
const statsFilters = [
  query('since', 'window start (default: 24 h before until)'),
  query('until', 'window end (default: now); at most 31 days'),
  query('by', 'model (default) or upstream_account'),
];
const requestIdParameter = [{ name: 'requestId', in: 'path', required: true, schema: { type: 'string' } }];
const accountFilter = query('account_id', 'one account only', 'integer');

function operation(
  operationId: string,
  summary: string,
  schema: JsonSchema,
  parameters: Operation['parameters'],
  forOperator: boolean,
): Operation {
  return {
    summary,
    operationId,
    parameters,
    tags: forOperator ? ['console'] : ['account'],
    security: forOperator ? [{ session: [] }] : MANAGEMENT_SECURITY,
    responses: { '200': jsonResponse(summary, schema), ...MANAGEMENT_ERRORS },
  };
}

const bodySettings: JsonSchema = {
  type: 'object',
  properties: {
    object: { const: 'request_body_settings' },
    account_id: { type: 'integer' },
    allowed: { type: 'boolean' },
    keep: { type: 'boolean' },
    key_overrides: { type: 'array', items: { type: 'object', properties: { api_key_id: { type: 'integer' }, keep: { type: 'boolean' } } } },
  },
};
const withBody = (op: Operation, schema: JsonSchema): Operation => ({ ...op, requestBody: jsonBody(schema) });
const idParameter = [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }];

export const REQUEST_PATHS: Paths = {
  '/api/v1/me/request-bodies': {
    get: operation(
      'getRequestBodySettings',
      'Whether request and response bodies are kept (off by default; an operator allows it)',
      bodySettings,
      [],
      false,
    ),
    put: withBody(
      operation(
        'setRequestBodySettings',
        "Keep (or stop keeping) the account's bodies; 403 unless an operator allowed it",
        bodySettings,
        [],
        false,
      ),
      { type: 'object', required: ['keep'], properties: { keep: { type: 'boolean' } }, additionalProperties: false },
    ),
  },
  '/api/v1/me/keys/{id}/request-bodies': {
    put: withBody(
      operation(
        'setKeyRequestBodySettings',
        "One key's override: keep, do not keep, or null to follow the account",
        bodySettings,
        idParameter,
        false,
      ),
      { type: 'object', required: ['keep'], properties: { keep: { type: ['boolean', 'null'] } }, additionalProperties: false },
    ),
  },
  '/api/v1/operator/accounts/{id}/request-bodies': {
    put: withBody(
      operation(
        'operatorSetRequestBodySettings',
        'Allow an account to keep bodies (and set its default) (operators)',
        bodySettings,
        idParameter,
        true,
      ),
      { type: 'object', properties: { allowed: { type: 'boolean' }, keep: { type: 'boolean' } }, additionalProperties: false },
    ),
  },
  '/api/v1/me/requests': {
    get: operation(
      'listRequests',
      "The account's requests (every request that reached authentication), newest first",
      list,
      filters,
      false,
    ),
  },
  '/api/v1/me/requests/stats': {
    get: operation(
      'requestStats',
      'Per model or upstream account over a window: requests, error rate by class, p50/p95/p99 duration and TTFB, tokens per second',
      stats,
      statsFilters,
      false,
    ),
  },
  '/api/v1/me/requests/{requestId}': {
    get: operation(
      'getRequest',
      'One request: its record, routing chain, usage and ledger rows, and bodies when kept',
      detail,
      requestIdParameter,
      false,
    ),
  },
  '/api/v1/operator/requests': {
    get: operation('operatorListRequests', 'Requests of every account, newest first (operators)', list, [...filters, accountFilter], true),
  },
  '/api/v1/operator/requests/stats': {
    get: operation('operatorRequestStats', 'Request figures across accounts (operators)', stats, [...statsFilters, accountFilter], true),
  },
  '/api/v1/operator/requests/{requestId}': {
    get: operation('operatorGetRequest', "Any account's request in detail (operators)", detail, requestIdParameter, true),
  },
};
