/**
 * Accounts (`accounts`) apart from money: creation, tier and concurrency cap, existence, listings.
 * Balances are read here; every change to them goes through the ledger repository.
 */
import type { Queryable } from '../queryable';
import { updateColumns } from './update-columns';

export type AccountTier = 'free' | 'pro' | 'max' | 'enterprise';
export type AccountKind = 'user' | 'organization';

export interface AccountRecord {
  id: number;
  name: string;
  kind: AccountKind;
  tier: AccountTier;
  concurrencyCap: number | null;
  balanceCredits: number;
  heldCredits: number;
  createdAt: Date;
}

export async function insertAccount(
  db: Queryable,
  input: { name: string; kind: AccountKind; tier: AccountTier; concurrencyCap: number | null },
): Promise<number> {
  const result = await db.query<{ id: number }>(
    'INSERT INTO accounts (name, kind, tier, concurrency_cap) VALUES ($1, $2, $3, $4) RETURNING id',
    [input.name, input.kind, input.tier, input.concurrencyCap],
  );
  return result.rows[0].id;
}

export async function findAccount(db: Queryable, accountId: number): Promise<AccountRecord | undefined> {
  const result = await db.query<{
    id: number;
    name: string;
    kind: AccountKind;
    tier: AccountTier;
    concurrency_cap: number | null;
    balance_credits: number;
    held_credits: number;
    created_at: Date;
  }>('SELECT id, name, kind, tier, concurrency_cap, balance_credits, held_credits, created_at FROM accounts WHERE id = $1', [accountId]);
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    id: Number(row.id),
    name: row.name,
    kind: row.kind,
    tier: row.tier,
    concurrencyCap: row.concurrency_cap,
    balanceCredits: row.balance_credits,
    heldCredits: row.held_credits,
    createdAt: row.created_at,
  };
}

export async function accountExists(db: Queryable, accountId: number): Promise<boolean> {
  const result = await db.query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
  return (result.rowCount ?? 0) > 0;
}

/** Whether the database has any account at all (the first start creates one). */
export async function anyAccountExists(db: Queryable): Promise<boolean> {
  const result = await db.query('SELECT 1 FROM accounts LIMIT 1');
  return (result.rowCount ?? 0) > 0;
}

export async function findFirstAccountId(db: Queryable): Promise<number | undefined> {
  const result = await db.query<{ id: string }>('SELECT id FROM accounts ORDER BY id LIMIT 1');
  return result.rows[0] === undefined ? undefined : Number(result.rows[0].id);
}

export interface AccountSummary extends AccountRecord {
  keys: number;
  users: number;
}

/** Every account with how many keys and console users it has, by id. */
export async function listAccounts(db: Queryable): Promise<AccountSummary[]> {
  const result = await db.query<{
    id: string;
    name: string;
    kind: AccountKind;
    tier: AccountTier;
    concurrency_cap: number | null;
    balance_credits: string;
    held_credits: string;
    keys: string;
    users: string;
    created_at: Date;
  }>(
    `SELECT a.id, a.name, a.kind, a.tier, a.concurrency_cap, a.balance_credits, a.held_credits, a.created_at,
            (SELECT count(*) FROM api_keys k WHERE k.account_id = a.id) AS keys,
            (SELECT count(*) FROM console_users u WHERE u.account_id = a.id) AS users
       FROM accounts a ORDER BY a.id`,
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    name: row.name,
    kind: row.kind,
    tier: row.tier,
    concurrencyCap: row.concurrency_cap,
    balanceCredits: Number(row.balance_credits),
    heldCredits: Number(row.held_credits),
    keys: Number(row.keys),
    users: Number(row.users),
    createdAt: row.created_at,
  }));
}

/** Sets only the given fields; `null` concurrency returns the account to its tier's default. False when there is no such account. */
export function updateAccount(
  db: Queryable,
  accountId: number,
  changes: { tier?: AccountTier; concurrencyCap?: number | null },
): Promise<boolean> {
  return updateColumns(db, 'accounts', accountId, { tier: changes.tier, concurrency_cap: changes.concurrencyCap });
}
