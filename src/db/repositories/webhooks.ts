/**
 * Webhooks and their deliveries in PostgreSQL (tables `webhooks`, `webhook_deliveries`): the account's
 * CRUD, the delivery log, the delivery worker's reads and attempts, and the delivery log's retention.
 */
import type { Pool } from 'pg';
import { deleteOlder } from '../partitions';
import type { Queryable } from '../queryable';

export interface WebhookRow {
  id: number;
  accountId: number;
  url: string;
  events: string[];
  secretEncrypted: string;
  secretLast4: string;
  active: boolean;
  createdAt: Date;
}

export interface DeliveryRow {
  id: number;
  webhookId: number;
  accountId: number;
  alertRuleId: number | null;
  event: string;
  payload: unknown;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  lastHttpStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  lastAttemptAt: Date | null;
  deliveredAt: Date | null;
}

const WEBHOOK_COLUMNS = 'id, account_id, url, events, secret_encrypted, secret_last4, active, created_at';
const DELIVERY_COLUMNS =
  'id, webhook_id, account_id, alert_rule_id, event, payload, status, attempts, last_http_status, last_error, created_at, last_attempt_at, delivered_at';

function toWebhook(row: Record<string, unknown>): WebhookRow {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    url: String(row.url),
    events: row.events as string[],
    secretEncrypted: String(row.secret_encrypted),
    secretLast4: String(row.secret_last4),
    active: Boolean(row.active),
    createdAt: row.created_at as Date,
  };
}

function toDelivery(row: Record<string, unknown>): DeliveryRow {
  return {
    id: Number(row.id),
    webhookId: Number(row.webhook_id),
    accountId: Number(row.account_id),
    alertRuleId: row.alert_rule_id === null ? null : Number(row.alert_rule_id),
    event: String(row.event),
    payload: row.payload,
    status: row.status as DeliveryRow['status'],
    attempts: Number(row.attempts),
    lastHttpStatus: (row.last_http_status as number | null) ?? null,
    lastError: (row.last_error as string | null) ?? null,
    createdAt: row.created_at as Date,
    lastAttemptAt: (row.last_attempt_at as Date | null) ?? null,
    deliveredAt: (row.delivered_at as Date | null) ?? null,
  };
}

export async function insertWebhook(
  db: Queryable,
  input: { accountId: number; url: string; events: string[]; secretEncrypted: string; secretLast4: string },
): Promise<WebhookRow> {
  const result = await db.query(
    `INSERT INTO webhooks (account_id, url, events, secret_encrypted, secret_last4) VALUES ($1, $2, $3, $4, $5) RETURNING ${WEBHOOK_COLUMNS}`,
    [input.accountId, input.url, input.events, input.secretEncrypted, input.secretLast4],
  );
  return toWebhook(result.rows[0]);
}

export async function listWebhooks(db: Queryable, accountId: number): Promise<WebhookRow[]> {
  return (await db.query(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE account_id = $1 ORDER BY id`, [accountId])).rows.map(toWebhook);
}

export async function findWebhook(db: Queryable, accountId: number, id: number): Promise<WebhookRow | undefined> {
  const row = (await db.query(`SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1 AND account_id = $2`, [id, accountId])).rows[0];
  return row ? toWebhook(row) : undefined;
}

export async function updateWebhook(
  db: Queryable,
  accountId: number,
  id: number,
  changes: { url?: string; events?: string[]; secretEncrypted?: string; secretLast4?: string; active?: boolean },
): Promise<WebhookRow | undefined> {
  const row = (
    await db.query(
      `UPDATE webhooks SET url = COALESCE($3, url), events = COALESCE($4, events), secret_encrypted = COALESCE($5, secret_encrypted),
            secret_last4 = COALESCE($6, secret_last4), active = COALESCE($7, active)
      WHERE id = $1 AND account_id = $2 RETURNING ${WEBHOOK_COLUMNS}`,
      [
        id,
        accountId,
        changes.url ?? null,
        changes.events ?? null,
        changes.secretEncrypted ?? null,
        changes.secretLast4 ?? null,
        changes.active ?? null,
      ],
    )
  ).rows[0];
  return row ? toWebhook(row) : undefined;
}

export async function deleteWebhook(db: Queryable, accountId: number, id: number): Promise<boolean> {
  return ((await db.query('DELETE FROM webhooks WHERE id = $1 AND account_id = $2', [id, accountId])).rowCount ?? 0) > 0;
}

/**
 * One delivery per active webhook of the account subscribed to the event (`onlyWebhookId`: the test
 * button's one webhook, whatever its events). Returns the new delivery ids.
 */
export async function insertDeliveries(
  db: Queryable,
  input: {
    accountId: number;
    event: string;
    payload: Record<string, unknown>;
    alertRuleId?: number;
    onlyWebhookId?: number;
  },
): Promise<number[]> {
  const result = await db.query<{ id: string }>(
    `INSERT INTO webhook_deliveries (webhook_id, account_id, alert_rule_id, event, payload)
     SELECT w.id, w.account_id, $3, $2, $4::jsonb FROM webhooks w
      WHERE w.account_id = $1 AND (($5::bigint IS NULL AND w.active AND $2 = ANY(w.events)) OR w.id = $5::bigint)
     RETURNING id`,
    [input.accountId, input.event, input.alertRuleId ?? null, JSON.stringify(input.payload), input.onlyWebhookId ?? null],
  );
  return result.rows.map((row) => Number(row.id));
}

export async function listDeliveries(
  db: Queryable,
  filters: { accountId: number; webhookId?: number; beforeId?: number; limit: number },
): Promise<DeliveryRow[]> {
  const result = await db.query(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
      WHERE account_id = $1 AND ($2::bigint IS NULL OR webhook_id = $2) AND ($3::bigint IS NULL OR id < $3)
      ORDER BY id DESC LIMIT $4`,
    [filters.accountId, filters.webhookId ?? null, filters.beforeId ?? null, filters.limit],
  );
  return result.rows.map(toDelivery);
}

/** What the delivery worker needs: the delivery and its webhook. */
export async function loadDeliveryTarget(
  db: Queryable,
  deliveryId: number,
): Promise<{ delivery: DeliveryRow; webhook: WebhookRow } | undefined> {
  const row = (
    await db.query(
      `SELECT d.id, d.webhook_id, d.account_id, d.alert_rule_id, d.event, d.payload, d.status, d.attempts, d.last_http_status, d.last_error,
            d.created_at, d.last_attempt_at, d.delivered_at,
            w.url, w.events, w.secret_encrypted, w.secret_last4, w.active, w.created_at AS webhook_created_at
       FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id WHERE d.id = $1`,
      [deliveryId],
    )
  ).rows[0];
  if (!row) return undefined;
  return { delivery: toDelivery(row), webhook: toWebhook({ ...row, id: row.webhook_id, created_at: row.webhook_created_at }) };
}

export async function recordAttempt(
  db: Queryable,
  deliveryId: number,
  attempt: { httpStatus: number | null; error: string | null; status: DeliveryRow['status'] },
): Promise<void> {
  await db.query(
    `UPDATE webhook_deliveries SET attempts = attempts + 1, last_http_status = $2, last_error = $3, status = $4, last_attempt_at = now(),
            delivered_at = CASE WHEN $4 = 'delivered' THEN now() ELSE delivered_at END
      WHERE id = $1`,
    [deliveryId, attempt.httpStatus, attempt.error, attempt.status],
  );
}

/** Deliveries still pending a while after they were made (their job may have been lost): handed to the queue again. */
export async function stalePendingDeliveries(db: Queryable, olderThanMs: number, limit: number): Promise<number[]> {
  const result = await db.query<{ id: string }>(
    `SELECT id FROM webhook_deliveries WHERE status = 'pending' AND created_at < now() - make_interval(secs => $1::double precision / 1000)
      ORDER BY id LIMIT $2`,
    [olderThanMs, limit],
  );
  return result.rows.map((row) => Number(row.id));
}

/** Retention: settled deliveries made before the cutoff, in small batches (one still being retried stays). */
export async function deleteSettledDeliveriesBefore(db: Pool, cutoffMs: number): Promise<number> {
  return deleteOlder(db, 'webhook_deliveries', 'id', cutoffMs, "status <> 'pending'");
}
