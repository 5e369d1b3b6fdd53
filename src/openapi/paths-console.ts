/** The web console's pages, the account data its charts read, and the operator API (issue 15). */
import { MANAGEMENT_ERRORS, MANAGEMENT_SECURITY } from './management-errors';
import { jsonBody, jsonResponse, type Operation, type Paths } from './openapi-types';
import { auditFilters } from './paths-account';

const object = { type: 'object', additionalProperties: true };
const list = { type: 'object', properties: { data: { type: 'array', items: object } }, additionalProperties: true };
const idParameter = [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }];
const slugParameter = [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }];
const grantParameters = [...idParameter, { name: 'accountId', in: 'path', required: true, schema: { type: 'integer' } }];
const OPERATOR_SECURITY: Operation['security'] = [{ session: [] }];

function account(operationId: string, summary: string, body: Record<string, unknown>, parameters?: Operation['parameters']): Operation {
  return {
    summary,
    tags: ['account'],
    operationId,
    security: MANAGEMENT_SECURITY,
    ...(parameters ? { parameters } : {}),
    responses: { '200': jsonResponse(summary, body), ...MANAGEMENT_ERRORS },
  };
}

/** Operator calls: console session of a user with the operator role; writes need the CSRF header. */
function operator(operationId: string, summary: string, options: { body?: boolean; parameters?: Operation['parameters'] } = {}): Operation {
  return {
    summary,
    tags: ['console'],
    operationId,
    security: OPERATOR_SECURITY,
    ...(options.parameters ? { parameters: options.parameters } : {}),
    ...(options.body ? { requestBody: jsonBody(object) } : {}),
    responses: { '200': jsonResponse(summary, object), ...MANAGEMENT_ERRORS },
  };
}

const page = (operationId: string): Operation => ({
  summary: 'The web console (a single page; it routes on the URL hash)',
  tags: ['console'],
  operationId,
  security: [],
  responses: {
    '200': { description: 'index.html', content: { 'text/html': { schema: { type: 'string' } } } },
    '404': MANAGEMENT_ERRORS['404'],
  },
});

export const CONSOLE_PATHS: Paths = {
  '/console': { get: page('consolePage') },
  '/console/{page}': {
    get: { ...page('consolePageDeep'), parameters: [{ name: 'page', in: 'path', required: true, schema: { type: 'string' } }] },
  },
  '/api/v1/me/usage/daily': {
    get: account(
      'usageDaily',
      'Spend, requests and tokens per day, by model and by key (summed in PostgreSQL), with today / 7 d / 30 d totals',
      object,
      [{ name: 'days', in: 'query', schema: { type: 'integer' } }],
    ),
  },
  '/api/v1/me/usage/export': {
    get: {
      ...account('usageExport', 'Usage rows as CSV, with the usage list filters', object),
      responses: { '200': { description: 'CSV', content: { 'text/csv': { schema: { type: 'string' } } } }, ...MANAGEMENT_ERRORS },
    },
  },
  '/api/v1/me/routing-groups': {
    get: account(
      'listRoutingGroups',
      "The routing groups the account may use (public ones and private ones granted to it): the key form's choices",
      list,
    ),
  },
  '/api/v1/me/key-windows': {
    get: account('listKeyWindows', "Each key's 5 h / 1 d / 7 d spend windows with limits and reset times", list),
  },
  '/api/v1/operator/me': { get: operator('operatorMe', 'The operator session') },
  '/api/v1/operator/accounts': {
    get: operator('operatorListAccounts', 'Accounts with tier, concurrency and balance'),
    post: operator('operatorCreateAccount', 'Create an account', { body: true }),
  },
  '/api/v1/operator/accounts/{id}': {
    patch: operator('operatorUpdateAccount', "Change an account's tier or concurrency", { body: true, parameters: idParameter }),
  },
  '/api/v1/operator/accounts/{id}/ledger': {
    post: operator('operatorLedgerEntry', 'Top-up or adjustment with a reason (written to the ledger and the wallet cache)', {
      body: true,
      parameters: idParameter,
    }),
  },
  '/api/v1/operator/groups': {
    get: operator('operatorListGroups', 'Routing groups'),
    post: operator('operatorCreateGroup', 'Create a routing group (visibility public, the default, or private: only granted accounts)', {
      body: true,
    }),
  },
  '/api/v1/operator/groups/{id}': {
    patch: operator('operatorUpdateGroup', 'Make a group public or private ({"visibility"}); keys of accounts that lose it stop at once', {
      body: true,
      parameters: idParameter,
    }),
  },
  '/api/v1/operator/groups/{id}/grants': {
    get: operator('operatorListGrants', 'The accounts a group is granted to', { parameters: idParameter }),
  },
  '/api/v1/operator/groups/{id}/grants/{accountId}': {
    put: operator('operatorGrantGroup', 'Grant the group to an account (201 when new)', { parameters: grantParameters }),
    delete: operator('operatorRevokeGrant', "Revoke a grant: the account's keys in the group stop on every API process", {
      parameters: grantParameters,
    }),
  },
  '/api/v1/operator/audit': {
    get: operator(
      'operatorListAudit',
      'Every audit event (all accounts and operator-wide changes), newest first, cursor-paged; account_id filters one account',
      { parameters: [...auditFilters, { name: 'account_id', in: 'query', schema: { type: 'string' } }] },
    ),
  },
  '/api/v1/operator/upstreams': {
    get: operator(
      'operatorListUpstreams',
      'Upstream accounts (credentials never shown), with their health as every API process shares it: cooling_down_until, healthy, recent_failures (by reason) over recent_minutes; provider, api_version and the last verification (last_check)',
    ),
    post: operator(
      'operatorCreateUpstream',
      'Add an upstream account by provider preset (or protocol); the base URL is normalised (reported in `normalized`) and verified with the provider before it is saved (`verify: false` skips it); a failed verification is a 400 naming its cause',
      { body: true },
    ),
  },
  '/api/v1/operator/upstream-health': {
    get: operator(
      'operatorUpstreamHealth',
      'Upstream health over time: cooldowns running now, and failures per minute by account and reason over the last `minutes` (1-1440, default 60)',
      {
        parameters: [{ name: 'minutes', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1440 } }],
      },
    ),
  },
  '/api/v1/operator/providers': {
    get: operator(
      'operatorListProviders',
      'The provider presets: protocol(s), default base URL, credential header, path convention, how they are verified',
    ),
  },
  '/api/v1/operator/upstreams/{id}': {
    patch: operator(
      'operatorUpdateUpstream',
      'Edit an upstream account: priority, weight, enabled, models; a new base URL, key or models is verified first (`verify: false` skips it)',
      { body: true, parameters: idParameter },
    ),
  },
  '/api/v1/operator/upstreams/{id}/test': {
    post: operator(
      'operatorTestUpstream',
      'The verification probe (credential, base URL, models listed; recorded as the last check), then one minimal real model call (never billed): ok, http_status, latency_ms, error_class, verification',
      { parameters: idParameter },
    ),
  },
  '/api/v1/operator/catalog': {
    get: operator('operatorCatalog', 'The catalog as the API process sees it, with aliases, prices (credits) and retirement'),
    post: operator('operatorAddModel', "Add a model (the catalog service's model shape; refused as 400 when its family forbids it)", {
      body: true,
    }),
  },
  '/api/v1/operator/catalog/{id}': {
    patch: operator('operatorUpdateModel', 'Change a model (prices merged field by field, limits, protocols); every API process reloads', {
      body: true,
      parameters: slugParameter,
    }),
  },
  '/api/v1/operator/catalog/{id}/retire': {
    post: operator(
      'operatorRetireModel',
      'Retire a model (body {"retired": false} restores it); a retired slug answers 400 unsupported_model',
      { body: true, parameters: slugParameter },
    ),
  },
  '/api/v1/operator/catalog/{id}/aliases': {
    post: operator('operatorModelAlias', 'Add an alias to a model (or remove it with "remove": true)', {
      body: true,
      parameters: slugParameter,
    }),
  },
};
