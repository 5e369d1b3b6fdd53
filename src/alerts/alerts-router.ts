/**
 * The account's alerts and webhooks (issue 22 item 5), behind the management auth:
 * `/api/v1/me/alerts` (list, create, delete threshold rules), `/api/v1/me/webhooks` (CRUD; the
 * secret is shown once, at creation or when set), `POST /api/v1/me/webhooks/{id}/test` (a signed
 * `webhook.test` delivery through the workers' queue) and `/api/v1/me/webhook-deliveries` (the
 * delivery log, newest first). Another account's rule or webhook answers 404.
 */
import { randomBytes } from 'node:crypto';
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import { managementPrincipal } from '../auth/management-auth';
import { parseBody } from '../auth/parse-body';
import { decodeCursor, encodeCursor } from '../account/page-cursor';
import { parseQuery } from '../account/account-query-schemas';
import { accountHasApiKey, deleteAlertRule, insertAlertRule, listAlertRules } from '../db/repositories/alerts';
import {
  deleteWebhook,
  findWebhook,
  insertDeliveries,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  updateWebhook,
} from '../db/repositories/webhooks';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { presentAlertRule, TEST_EVENT, WEBHOOK_EVENTS } from './alert-rule';
import { createAlertRuleSchema, createWebhookSchema, newAlertRule, updateWebhookSchema } from './alert-schemas';
import { presentDelivery, presentWebhook } from './present-webhook';
import { checkWebhookUrl } from './webhook-url';
import { createWebhookQueue, type WebhookQueue } from './webhook-queue';

type AlertsDependencies = Pick<Dependencies, 'config' | 'db' | 'redisKeys' | 'crypto' | 'clock'>;

const DELIVERY_CURSOR = 'webhook_delivery';
const deliveriesQuerySchema = z.strictObject({
  webhook_id: z
    .string()
    .regex(/^[1-9]\d{0,15}$/, { error: 'must be a positive integer' })
    .transform(Number)
    .optional(),
  limit: z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(100)).default(50),
  cursor: z.string().optional(),
});

function idParam(req: Request, what: string): number {
  const raw = req.params.id;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,15}$/.test(raw)) throw new GatewayError('not_found', `${what} not found`);
  return Number(raw);
}

/** The alert and webhook routes of one router: their dependencies and the webhook queue, opened on first use. */
class AlertRoutes {
  private queue: WebhookQueue | undefined;

  constructor(private readonly deps: AlertsDependencies) {}

  readonly alertRules = async (_req: Request, res: Response): Promise<void> => {
    res.json({ object: 'list', data: (await listAlertRules(this.deps.db, managementPrincipal(res).accountId)).map(presentAlertRule) });
  };

  readonly createAlertRule = async (req: Request, res: Response): Promise<void> => {
    const accountId = managementPrincipal(res).accountId;
    const input = parseBody(createAlertRuleSchema, req.body);
    if ('api_key_id' in input && !(await accountHasApiKey(this.deps.db, accountId, input.api_key_id))) {
      throw new GatewayError('invalid_request', 'api_key_id: no API key of this account has this id', { param: 'api_key_id' });
    }
    res.status(201).json(presentAlertRule(await insertAlertRule(this.deps.db, newAlertRule(accountId, input))));
  };

  readonly removeAlertRule = async (req: Request, res: Response): Promise<void> => {
    const id = idParam(req, 'alert rule');
    if (!(await deleteAlertRule(this.deps.db, managementPrincipal(res).accountId, id)))
      throw new GatewayError('not_found', 'alert rule not found');
    res.json({ object: 'alert_rule', id, deleted: true });
  };

  readonly webhooks = async (_req: Request, res: Response): Promise<void> => {
    res.json({ object: 'list', data: (await listWebhooks(this.deps.db, managementPrincipal(res).accountId)).map(presentWebhook) });
  };

  readonly createWebhook = async (req: Request, res: Response): Promise<void> => {
    const input = parseBody(createWebhookSchema, req.body);
    const secret = input.secret ?? `whsec_${randomBytes(24).toString('base64url')}`;
    const webhook = await insertWebhook(this.deps.db, {
      accountId: managementPrincipal(res).accountId,
      url: await this.checkedUrl(input.url),
      events: input.events ?? WEBHOOK_EVENTS,
      ...this.secretFields(secret),
    });
    res.status(201).json({ ...presentWebhook(webhook), secret });
  };

  readonly webhook = async (req: Request, res: Response): Promise<void> => {
    const webhook = await findWebhook(this.deps.db, managementPrincipal(res).accountId, idParam(req, 'webhook'));
    if (!webhook) throw new GatewayError('not_found', 'webhook not found');
    res.json(presentWebhook(webhook));
  };

  readonly changeWebhook = async (req: Request, res: Response): Promise<void> => {
    const id = idParam(req, 'webhook');
    const input = parseBody(updateWebhookSchema, req.body);
    const webhook = await updateWebhook(this.deps.db, managementPrincipal(res).accountId, id, {
      url: input.url === undefined ? undefined : await this.checkedUrl(input.url),
      events: input.events,
      active: input.active,
      ...(input.secret === undefined ? {} : this.secretFields(input.secret)),
    });
    if (!webhook) throw new GatewayError('not_found', 'webhook not found');
    res.json(presentWebhook(webhook));
  };

  readonly removeWebhook = async (req: Request, res: Response): Promise<void> => {
    const id = idParam(req, 'webhook');
    if (!(await deleteWebhook(this.deps.db, managementPrincipal(res).accountId, id)))
      throw new GatewayError('not_found', 'webhook not found');
    res.json({ object: 'webhook', id, deleted: true });
  };

  /** The test button: one signed `webhook.test` delivery, sent (and retried) by the workers like any other. */
  readonly testWebhook = async (req: Request, res: Response): Promise<void> => {
    const accountId = managementPrincipal(res).accountId;
    const webhook = await findWebhook(this.deps.db, accountId, idParam(req, 'webhook'));
    if (!webhook) throw new GatewayError('not_found', 'webhook not found');
    const payload = {
      type: TEST_EVENT,
      created_at: new Date(this.deps.clock.now()).toISOString(),
      data: { account_id: accountId, webhook_id: webhook.id },
    };
    const [deliveryId] = await insertDeliveries(this.deps.db, { accountId, event: TEST_EVENT, payload, onlyWebhookId: webhook.id });
    await this.webhookQueue().enqueue([deliveryId!]);
    res.status(202).json({ object: 'webhook_delivery', id: deliveryId, webhook_id: webhook.id, event: TEST_EVENT, status: 'pending' });
  };

  readonly deliveries = async (req: Request, res: Response): Promise<void> => {
    const query = parseQuery(deliveriesQuerySchema, req.query);
    const rows = await listDeliveries(this.deps.db, {
      accountId: managementPrincipal(res).accountId,
      webhookId: query.webhook_id,
      limit: query.limit + 1,
      beforeId: query.cursor === undefined ? undefined : decodeCursor(DELIVERY_CURSOR, query.cursor),
    });
    const shown = rows.slice(0, query.limit);
    const hasMore = rows.length > query.limit;
    res.json({
      object: 'list',
      data: shown.map(presentDelivery),
      has_more: hasMore,
      next_cursor: hasMore ? encodeCursor(DELIVERY_CURSOR, shown[shown.length - 1]!.id) : null,
    });
  };

  async close(): Promise<void> {
    await this.queue?.close();
  }

  private webhookQueue(): WebhookQueue {
    return (this.queue ??= createWebhookQueue(this.deps));
  }

  private async checkedUrl(url: string): Promise<string> {
    return (await checkWebhookUrl(url, { allowPrivate: this.deps.config.webhooks.allowPrivate })).url.toString();
  }

  private secretFields(secret: string) {
    return { secretEncrypted: this.deps.crypto.encrypt(secret), secretLast4: secret.slice(-4) };
  }
}

export function createAlertsRouter(
  deps: AlertsDependencies,
  options: { managementAuth: RequestHandler },
): Router & { close(): Promise<void> } {
  const routes = new AlertRoutes(deps);
  const router = express.Router();
  const { managementAuth } = options;
  router.get('/api/v1/me/alerts', managementAuth, routes.alertRules);
  router.post('/api/v1/me/alerts', managementAuth, routes.createAlertRule);
  router.delete('/api/v1/me/alerts/:id', managementAuth, routes.removeAlertRule);
  router.get('/api/v1/me/webhooks', managementAuth, routes.webhooks);
  router.post('/api/v1/me/webhooks', managementAuth, routes.createWebhook);
  router.get('/api/v1/me/webhooks/:id', managementAuth, routes.webhook);
  router.patch('/api/v1/me/webhooks/:id', managementAuth, routes.changeWebhook);
  router.delete('/api/v1/me/webhooks/:id', managementAuth, routes.removeWebhook);
  router.post('/api/v1/me/webhooks/:id/test', managementAuth, routes.testWebhook);
  router.get('/api/v1/me/webhook-deliveries', managementAuth, routes.deliveries);
  return Object.assign(router, { close: () => routes.close() });
}
