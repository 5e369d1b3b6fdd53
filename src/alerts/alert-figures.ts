/**
 * The figures alert rules watch, read from what settlement already wrote to PostgreSQL: a key's
 * lifetime spend and quota, its settled spend in each window (the console's gauges), the wallet
 * balance, and the account's requests and errors over a window from the request log.
 */
import type { Pool } from 'pg';
import { keyWindows } from '../account/key-windows';
import type { SpendWindow } from './alert-rule';

export interface RequestOutcomes { requests: number; errors: number }

/** Requests and errors of an account since a time: the error-rate rule's data source. */
export type RequestOutcomeSource = (accountId: number, since: Date) => Promise<RequestOutcomes>;

const UNDEFINED_TABLE = '42P01';

/**
 * From `request_records` (the request log, issue 22 item 1): every request that reached
 * authentication, `outcome` ok | error | aborted. Aborts are the client's doing, not errors. Before
 * the request log exists, no figure (the rule stays armed).
 */
export function requestRecordOutcomes(db: Pool): RequestOutcomeSource {
  return async (accountId, since) => {
    try {
      const result = await db.query<{ requests: string; errors: string }>(
        `SELECT count(*) AS requests, count(*) FILTER (WHERE outcome = 'error') AS errors
           FROM request_records WHERE account_id = $1 AND created_at >= $2`, [accountId, since]);
      return { requests: Number(result.rows[0]?.requests ?? 0), errors: Number(result.rows[0]?.errors ?? 0) };
    } catch (error) {
      if ((error as { code?: string }).code === UNDEFINED_TABLE) return { requests: 0, errors: 0 };
      throw error;
    }
  };
}

/** Each key's lifetime quota and settled spend, credits. */
export async function keyQuotas(db: Pool, keyIds: readonly number[]): Promise<Map<number, { quota: number; spent: number }>> {
  if (keyIds.length === 0) return new Map();
  const result = await db.query<{ id: string; quota_credits: string; spent_credits: string }>(
    'SELECT id, quota_credits, spent_credits FROM api_keys WHERE id = ANY($1::bigint[])', [keyIds]);
  return new Map(result.rows.map((row) => [Number(row.id), { quota: Number(row.quota_credits), spent: Number(row.spent_credits) }]));
}

/** Share of each window's limit spent, per key of the account (no entry: unlimited window). */
export async function keyWindowShares(db: Pool, accountId: number, nowMs: number): Promise<Map<string, number>> {
  const shares = new Map<string, number>();
  for (const key of await keyWindows(db, accountId, nowMs)) {
    for (const window of key.windows) if (window.limit > 0) shares.set(windowShareKey(key.api_key_id, window.name), window.spent / window.limit);
  }
  return shares;
}

export const windowShareKey = (keyId: number, window: SpendWindow) => `${keyId}:${window}`;

export async function walletBalances(db: Pool, accountIds: readonly number[]): Promise<Map<number, number>> {
  if (accountIds.length === 0) return new Map();
  const result = await db.query<{ id: string; balance_credits: string }>('SELECT id, balance_credits FROM accounts WHERE id = ANY($1::bigint[])', [accountIds]);
  return new Map(result.rows.map((row) => [Number(row.id), Number(row.balance_credits)]));
}
