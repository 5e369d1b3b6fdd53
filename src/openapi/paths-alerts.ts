/** Alerts and webhooks of the account (issue 22 item 5; docs/webhooks.md). */
import { WEBHOOK_EVENTS } from '../alerts/alert-rule';
import { MANAGEMENT_ERRORS, MANAGEMENT_SECURITY } from './management-errors';
import { jsonBody, jsonResponse, type JsonSchema, type Operation, type Paths } from './openapi-types';

const share = { type: 'number', exclusiveMinimum: 0, maximum: 1 };
const alertRule: JsonSchema = {
  type: 'object',
  properties: {
    object: { const: 'alert_rule' },
    id: { type: 'integer' },
    kind: { enum: ['key_quota', 'key_spend_window', 'wallet_below', 'error_rate'] },
    event: { enum: WEBHOOK_EVENTS },
    api_key_id: { type: ['integer', 'null'] },
    window: { enum: ['5h', '1d', '7d', null] },
    threshold: { type: ['number', 'null'] },
    amount: { type: ['number', 'null'], description: 'USD (wallet_below)' },
    window_minutes: { type: ['integer', 'null'] },
    min_requests: { type: ['integer', 'null'] },
    state: { enum: ['ok', 'firing'], description: 'firing: crossed and already notified; re-armed when the figure goes back' },
    last_value: { type: ['number', 'null'], description: 'the figure at the last evaluation: a share, or USD for wallet_below' },
    last_fired_at: { type: ['string', 'null'], format: 'date-time' },
    created_at: { type: 'string', format: 'date-time' },
  },
};
const createAlertRule: JsonSchema = {
  oneOf: [
    {
      type: 'object',
      required: ['kind', 'api_key_id', 'threshold'],
      properties: { kind: { const: 'key_quota' }, api_key_id: { type: 'integer' }, threshold: share },
    },
    {
      type: 'object',
      required: ['kind', 'api_key_id', 'window', 'threshold'],
      properties: {
        kind: { const: 'key_spend_window' },
        api_key_id: { type: 'integer' },
        window: { enum: ['5h', '1d', '7d'] },
        threshold: share,
      },
    },
    {
      type: 'object',
      required: ['kind', 'amount'],
      properties: { kind: { const: 'wallet_below' }, amount: { type: 'number', exclusiveMinimum: 0, description: 'USD' } },
    },
    {
      type: 'object',
      required: ['kind', 'threshold'],
      properties: {
        kind: { const: 'error_rate' },
        threshold: share,
        window_minutes: { type: 'integer', minimum: 1, default: 15 },
        min_requests: { type: 'integer', minimum: 1, default: 20 },
      },
    },
  ],
};
const webhook: JsonSchema = {
  type: 'object',
  properties: {
    object: { const: 'webhook' },
    id: { type: 'integer' },
    url: { type: 'string' },
    events: { type: 'array', items: { enum: WEBHOOK_EVENTS } },
    secret_last4: { type: 'string' },
    active: { type: 'boolean' },
    created_at: { type: 'string', format: 'date-time' },
    secret: { type: 'string', description: 'only in the answer that creates the webhook' },
  },
};
const webhookInput = (required: string[]): JsonSchema => ({
  type: 'object',
  required,
  additionalProperties: false,
  properties: {
    url: { type: 'string', description: 'http(s); private and loopback addresses refused unless WEBHOOK_ALLOW_PRIVATE' },
    events: { type: 'array', items: { enum: WEBHOOK_EVENTS }, description: 'default: every alert event' },
    secret: { type: 'string', minLength: 16, description: 'signing secret; generated (whsec_…) when omitted at creation' },
    ...(required.length === 0 ? { active: { type: 'boolean' } } : {}),
  },
});
const delivery: JsonSchema = {
  type: 'object',
  properties: {
    object: { const: 'webhook_delivery' },
    id: { type: 'integer' },
    webhook_id: { type: 'integer' },
    alert_rule_id: { type: ['integer', 'null'] },
    event: { type: 'string' },
    status: { enum: ['pending', 'delivered', 'failed'] },
    attempts: { type: 'integer' },
    last_http_status: { type: ['integer', 'null'] },
    last_error: { type: ['string', 'null'] },
    payload: { type: 'object' },
    created_at: { type: 'string', format: 'date-time' },
    last_attempt_at: { type: ['string', 'null'] },
    delivered_at: { type: ['string', 'null'] },
  },
};
const listOf = (item: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: {
    object: { const: 'list' },
    data: { type: 'array', items: item },
    has_more: { type: 'boolean' },
    next_cursor: { type: ['string', 'null'] },
  },
});
const idParameter = [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }];

function op(operationId: string, summary: string, response: JsonSchema, extra: Partial<Operation> = {}, status = '200'): Operation {
  return {
    summary,
    tags: ['account'],
    operationId,
    security: MANAGEMENT_SECURITY,
    ...extra,
    responses: { [status]: jsonResponse(summary, response), ...MANAGEMENT_ERRORS },
  };
}

export const ALERT_PATHS: Paths = {
  '/api/v1/me/alerts': {
    get: op('listAlertRules', 'Alert rules and their state', listOf(alertRule)),
    post: op(
      'createAlertRule',
      'Add an alert rule: a key (share of quota or of a spend window) or the account (wallet below an amount, error rate over a window); fires once per crossing',
      alertRule,
      { requestBody: jsonBody(createAlertRule) },
      '201',
    ),
  },
  '/api/v1/me/alerts/{id}': { delete: op('deleteAlertRule', 'Remove an alert rule', { type: 'object' }, { parameters: idParameter }) },
  '/api/v1/me/webhooks': {
    get: op('listWebhooks', "The account's webhooks", listOf(webhook)),
    post: op(
      'createWebhook',
      'Register a webhook (the answer carries the signing secret, once)',
      webhook,
      { requestBody: jsonBody(webhookInput(['url'])) },
      '201',
    ),
  },
  '/api/v1/me/webhooks/{id}': {
    get: op('getWebhook', 'One webhook', webhook, { parameters: idParameter }),
    patch: op('updateWebhook', 'Change URL, events, secret or active', webhook, {
      parameters: idParameter,
      requestBody: jsonBody(webhookInput([])),
    }),
    delete: op('deleteWebhook', 'Remove a webhook and its delivery log', { type: 'object' }, { parameters: idParameter }),
  },
  '/api/v1/me/webhooks/{id}/test': {
    post: op('testWebhook', 'Send a signed webhook.test event through the delivery queue', delivery, { parameters: idParameter }, '202'),
  },
  '/api/v1/me/webhook-deliveries': {
    get: op('listWebhookDeliveries', 'The delivery log, newest first: status, attempts, last HTTP status and error', listOf(delivery), {
      parameters: ['webhook_id', 'cursor', 'limit'].map((name) => ({
        name,
        in: 'query',
        schema: { type: name === 'cursor' ? 'string' : 'integer' },
      })),
    }),
  },
};
