/** Alert rules in PostgreSQL: the account's CRUD, and the evaluator's reads and state changes. */
import type { Pool, PoolClient } from 'pg';
import type { AlertKind, AlertRule, SpendWindow } from './alert-rule';
import type { CreateAlertRule } from './alert-schemas';

interface Row {
  id: string; account_id: string; api_key_id: string | null; kind: AlertKind; spend_window: SpendWindow | null;
  threshold: number | null; threshold_credits: string | null; window_minutes: number | null; min_requests: number | null;
  firing: boolean; last_value: number | null; last_fired_at: Date | null; created_at: Date;
}

const COLUMNS = 'id, account_id, api_key_id, kind, spend_window, threshold, threshold_credits, window_minutes, min_requests, firing, last_value, last_fired_at, created_at';

const nullableNumber = (value: string | null) => (value === null ? null : Number(value));

function toRule(row: Row): AlertRule {
  return {
    id: Number(row.id), accountId: Number(row.account_id), apiKeyId: nullableNumber(row.api_key_id), kind: row.kind,
    spendWindow: row.spend_window, threshold: row.threshold, thresholdCredits: nullableNumber(row.threshold_credits),
    windowMinutes: row.window_minutes, minRequests: row.min_requests, firing: row.firing, lastValue: row.last_value,
    lastFiredAt: row.last_fired_at, createdAt: row.created_at,
  };
}

export async function insertAlertRule(db: Pool, accountId: number, input: CreateAlertRule): Promise<AlertRule> {
  const result = await db.query<Row>(
    `INSERT INTO alert_rules (account_id, api_key_id, kind, spend_window, threshold, threshold_credits, window_minutes, min_requests)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [accountId, 'api_key_id' in input ? input.api_key_id : null, input.kind, 'window' in input ? input.window : null,
      'threshold' in input ? input.threshold : null, 'amount' in input ? Math.round(input.amount * 1_000_000) : null,
      'window_minutes' in input ? input.window_minutes : null, 'min_requests' in input ? input.min_requests : null]);
  return toRule(result.rows[0]!);
}

export async function listAlertRules(db: Pool, accountId: number): Promise<AlertRule[]> {
  return (await db.query<Row>(`SELECT ${COLUMNS} FROM alert_rules WHERE account_id = $1 ORDER BY id`, [accountId])).rows.map(toRule);
}

export async function deleteAlertRule(db: Pool, accountId: number, id: number): Promise<boolean> {
  return ((await db.query('DELETE FROM alert_rules WHERE id = $1 AND account_id = $2', [id, accountId])).rowCount ?? 0) > 0;
}

/** Every rule, in pages by id (the evaluator). */
export async function alertRulesAfter(db: Pool, afterId: number, limit: number): Promise<AlertRule[]> {
  return (await db.query<Row>(`SELECT ${COLUMNS} FROM alert_rules WHERE id > $1 ORDER BY id LIMIT $2`, [afterId, limit])).rows.map(toRule);
}

/** Arms → firing, only if still armed: of two evaluators, one wins. True when this call fired it. */
export async function markFiring(client: PoolClient, id: number, value: number): Promise<boolean> {
  const result = await client.query('UPDATE alert_rules SET firing = true, last_value = $2, last_fired_at = now() WHERE id = $1 AND NOT firing', [id, value]);
  return (result.rowCount ?? 0) > 0;
}

/** Re-arms a rule whose figure went back, and keeps the figure shown for every other rule. */
export async function recordAlertValue(db: Pool, id: number, value: number | null, rearm: boolean): Promise<void> {
  await db.query('UPDATE alert_rules SET last_value = $2, firing = CASE WHEN $3 THEN false ELSE firing END WHERE id = $1', [id, value, rearm]);
}
