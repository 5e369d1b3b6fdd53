/** One page of an account's ledger (billing transactions), newest first, keyset pagination on id. */
import type { Pool } from 'pg';
import { sqlConditions } from '../db/sql-conditions';
import type { LedgerKind } from '../billing/ledger';

export interface LedgerEntryRecord {
  id: number;
  kind: LedgerKind;
  amountCredits: number;
  balanceAfterCredits: number;
  reference: string | null;
  apiKeyId: number | null;
  description: string | null;
  createdAt: Date;
}

export interface LedgerFilters {
  accountId: number;
  limit: number;
  beforeId?: number;
  kinds?: LedgerKind[];
  /** Entries about one request (its charge) or task. */
  reference?: string;
  from?: Date;
  to?: Date;
}

interface Row {
  id: number; kind: LedgerKind; amount_credits: number; balance_after: number; reference: string | null;
  api_key_id: number | null; description: string | null; created_at: Date;
}

/** Up to `limit + 1` entries: the extra one only tells whether another page exists. */
export async function listLedgerEntries(db: Pool, filters: LedgerFilters): Promise<LedgerEntryRecord[]> {
  const sql = sqlConditions('account_id = ?', filters.accountId);
  const add = sql.add;
  if (filters.beforeId !== undefined) add('id < ?', filters.beforeId);
  if (filters.kinds !== undefined) add('kind = ANY(?::text[])', filters.kinds);
  if (filters.reference !== undefined) add('reference = ?', filters.reference);
  if (filters.from !== undefined) add('created_at >= ?', filters.from);
  if (filters.to !== undefined) add('created_at < ?', filters.to);
  const limit = sql.param(filters.limit + 1);
  const result = await db.query<Row>(
    `SELECT id, kind, amount_credits, balance_after, reference, api_key_id, description, created_at
       FROM ledger_entries WHERE ${sql.where()} ORDER BY id DESC LIMIT ${limit}`,
    sql.values);
  return result.rows.map((row) => ({
    id: Number(row.id), kind: row.kind, amountCredits: row.amount_credits, balanceAfterCredits: row.balance_after,
    reference: row.reference, apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id), description: row.description,
    createdAt: row.created_at,
  }));
}
