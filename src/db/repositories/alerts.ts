/**
 * Alert rules in PostgreSQL (table `alert_rules`): the account's CRUD, the evaluator's reads and state
 * changes, and the figures the evaluator reads for key and wallet rules (a key's quota and spend, a
 * wallet's balance) and the key check of a new rule.
 */
import type { Queryable } from '../queryable';

/** The kinds and spend windows `alert_rules`' CHECK constraints allow (migration 070). */
export type StoredAlertKind = 'key_quota' | 'key_spend_window' | 'wallet_below' | 'error_rate';
export type StoredSpendWindow = '5h' | '1d' | '7d';

export interface NewAlertRule {
  accountId: number;
  apiKeyId: number | null;
  kind: StoredAlertKind;
  spendWindow: StoredSpendWindow | null;
  threshold: number | null;
  thresholdCredits: number | null;
  windowMinutes: number | null;
  minRequests: number | null;
}

export interface StoredAlertRule extends NewAlertRule {
  id: number;
  firing: boolean;
  lastValue: number | null;
  lastFiredAt: Date | null;
  createdAt: Date;
}

interface Row {
  id: string;
  account_id: string;
  api_key_id: string | null;
  kind: StoredAlertKind;
  spend_window: StoredSpendWindow | null;
  threshold: number | null;
  threshold_credits: string | null;
  window_minutes: number | null;
  min_requests: number | null;
  firing: boolean;
  last_value: number | null;
  last_fired_at: Date | null;
  created_at: Date;
}

const COLUMNS =
  'id, account_id, api_key_id, kind, spend_window, threshold, threshold_credits, window_minutes, min_requests, firing, last_value, last_fired_at, created_at';

const nullableNumber = (value: string | null) => (value === null ? null : Number(value));

function toRule(row: Row): StoredAlertRule {
  return {
    id: Number(row.id),
    accountId: Number(row.account_id),
    apiKeyId: nullableNumber(row.api_key_id),
    kind: row.kind,
    spendWindow: row.spend_window,
    threshold: row.threshold,
    thresholdCredits: nullableNumber(row.threshold_credits),
    windowMinutes: row.window_minutes,
    minRequests: row.min_requests,
    firing: row.firing,
    lastValue: row.last_value,
    lastFiredAt: row.last_fired_at,
    createdAt: row.created_at,
  };
}

export async function insertAlertRule(db: Queryable, rule: NewAlertRule): Promise<StoredAlertRule> {
  const result = await db.query<Row>(
    `INSERT INTO alert_rules (account_id, api_key_id, kind, spend_window, threshold, threshold_credits, window_minutes, min_requests)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${COLUMNS}`,
    [
      rule.accountId,
      rule.apiKeyId,
      rule.kind,
      rule.spendWindow,
      rule.threshold,
      rule.thresholdCredits,
      rule.windowMinutes,
      rule.minRequests,
    ],
  );
  return toRule(result.rows[0]!);
}

export async function listAlertRules(db: Queryable, accountId: number): Promise<StoredAlertRule[]> {
  return (await db.query<Row>(`SELECT ${COLUMNS} FROM alert_rules WHERE account_id = $1 ORDER BY id`, [accountId])).rows.map(toRule);
}

export async function deleteAlertRule(db: Queryable, accountId: number, id: number): Promise<boolean> {
  return ((await db.query('DELETE FROM alert_rules WHERE id = $1 AND account_id = $2', [id, accountId])).rowCount ?? 0) > 0;
}

/** Every rule, in pages by id (the evaluator). */
export async function alertRulesAfter(db: Queryable, afterId: number, limit: number): Promise<StoredAlertRule[]> {
  return (await db.query<Row>(`SELECT ${COLUMNS} FROM alert_rules WHERE id > $1 ORDER BY id LIMIT $2`, [afterId, limit])).rows.map(toRule);
}

/** Arms → firing, only if still armed: of two evaluators, one wins. True when this call fired it. */
export async function markFiring(db: Queryable, id: number, value: number): Promise<boolean> {
  const result = await db.query(
    'UPDATE alert_rules SET firing = true, last_value = $2, last_fired_at = now() WHERE id = $1 AND NOT firing',
    [id, value],
  );
  return (result.rowCount ?? 0) > 0;
}

/** Re-arms a rule whose figure went back, and keeps the figure shown for every other rule. */
export async function recordAlertValue(db: Queryable, id: number, value: number | null, rearm: boolean): Promise<void> {
  await db.query('UPDATE alert_rules SET last_value = $2, firing = CASE WHEN $3 THEN false ELSE firing END WHERE id = $1', [
    id,
    value,
    rearm,
  ]);
}

/** Whether the account has an API key of this id (a key rule may only watch the account's own keys). */
export async function accountHasApiKey(db: Queryable, accountId: number, apiKeyId: number): Promise<boolean> {
  const key = await db.query('SELECT 1 FROM api_keys WHERE id = $1 AND account_id = $2', [apiKeyId, accountId]);
  return Boolean(key.rowCount);
}

/** Each key's lifetime quota and settled spend, credits. */
export async function keyQuotas(db: Queryable, keyIds: readonly number[]): Promise<Map<number, { quota: number; spent: number }>> {
  if (keyIds.length === 0) return new Map();
  const result = await db.query<{ id: string; quota_credits: string; spent_credits: string }>(
    'SELECT id, quota_credits, spent_credits FROM api_keys WHERE id = ANY($1::bigint[])',
    [keyIds],
  );
  return new Map(result.rows.map((row) => [Number(row.id), { quota: Number(row.quota_credits), spent: Number(row.spent_credits) }]));
}

/** Each account's wallet balance, credits. */
export async function walletBalances(db: Queryable, accountIds: readonly number[]): Promise<Map<number, number>> {
  if (accountIds.length === 0) return new Map();
  const result = await db.query<{ id: string; balance_credits: string }>(
    'SELECT id, balance_credits FROM accounts WHERE id = ANY($1::bigint[])',
    [accountIds],
  );
  return new Map(result.rows.map((row) => [Number(row.id), Number(row.balance_credits)]));
}
