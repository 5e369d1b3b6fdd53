/** The operator pages' reads and partial updates (accounts, upstream accounts). */
import type { Pool } from 'pg';
import type { Tier } from '../auth/authenticated-key';

export interface OperatorAccountRow {
  id: number; name: string; kind: string; tier: Tier; concurrencyCap: number | null;
  balanceCredits: number; heldCredits: number; keys: number; users: number; createdAt: Date;
}

export async function listOperatorAccounts(db: Pool): Promise<OperatorAccountRow[]> {
  const result = await db.query<{
    id: string; name: string; kind: string; tier: Tier; concurrency_cap: number | null; balance_credits: string; held_credits: string;
    keys: string; users: string; created_at: Date;
  }>(
    `SELECT a.id, a.name, a.kind, a.tier, a.concurrency_cap, a.balance_credits, a.held_credits, a.created_at,
            (SELECT count(*) FROM api_keys k WHERE k.account_id = a.id) AS keys,
            (SELECT count(*) FROM console_users u WHERE u.account_id = a.id) AS users
       FROM accounts a ORDER BY a.id`);
  return result.rows.map((row) => ({
    id: Number(row.id), name: row.name, kind: row.kind, tier: row.tier, concurrencyCap: row.concurrency_cap,
    balanceCredits: Number(row.balance_credits), heldCredits: Number(row.held_credits), keys: Number(row.keys), users: Number(row.users), createdAt: row.created_at,
  }));
}

/** Sets only the given columns; `null` concurrency returns the account to its tier's default. */
function setClause(changes: Record<string, unknown>): { sql: string; values: unknown[] } {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  return { sql: entries.map(([column], i) => `${column} = $${i + 2}`).join(', '), values: entries.map(([, value]) => value) };
}

async function update(db: Pool, table: 'accounts' | 'upstream_accounts', id: number, changes: Record<string, unknown>): Promise<boolean> {
  const { sql, values } = setClause(changes);
  const result = sql
    ? await db.query(`UPDATE ${table} SET ${sql} WHERE id = $1`, [id, ...values])
    : await db.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id]);
  return (result.rowCount ?? 0) > 0;
}

export function updateAccount(db: Pool, id: number, changes: { tier?: Tier; concurrencyCap?: number | null }): Promise<boolean> {
  return update(db, 'accounts', id, { tier: changes.tier, concurrency_cap: changes.concurrencyCap });
}

export function updateUpstream(db: Pool, id: number, changes: {
  name?: string; baseUrl?: string; credentialEncrypted?: string; models?: string[]; priority?: number; weight?: number; status?: 'active' | 'disabled';
}): Promise<boolean> {
  return update(db, 'upstream_accounts', id, {
    name: changes.name, base_url: changes.baseUrl, credential_encrypted: changes.credentialEncrypted, models: changes.models,
    priority: changes.priority, weight: changes.weight, status: changes.status,
  });
}

export interface UpstreamListing {
  object: 'upstream_account'; id: number; group_id: number; group_name: string; name: string; protocol: string; base_url: string; models: string[];
  priority: number; weight: number; status: string; requests_24h: number; last_used_at: string | null; created_at: string;
  provider: string | null; api_version: string | null;
  /** The last verification (add, change, Test): when, whether it passed, what it said. */
  last_check: { at: string; ok: boolean; message: string | null } | null;
}

export async function listUpstreams(db: Pool): Promise<UpstreamListing[]> {
  const result = await db.query<{
    id: string; group_id: string; group_name: string; name: string; protocol: string; base_url: string; models: string[];
    priority: number; weight: number; status: string; created_at: Date; requests_24h: string; last_used_at: Date | null;
    provider: string | null; api_version: string | null; last_check_at: Date | null; last_check_ok: boolean | null; last_check_message: string | null;
  }>(
    `SELECT u.id, u.group_id, g.name AS group_name, u.name, u.protocol, u.base_url, u.models, u.priority, u.weight, u.status, u.created_at,
            u.provider, u.api_version, u.last_check_at, u.last_check_ok, u.last_check_message,
            (SELECT count(*) FROM usage_rows r WHERE r.upstream_account_id = u.id AND r.started_at > now() - interval '24 hours') AS requests_24h,
            (SELECT max(r.started_at) FROM usage_rows r WHERE r.upstream_account_id = u.id) AS last_used_at
       FROM upstream_accounts u JOIN routing_groups g ON g.id = u.group_id
      ORDER BY u.group_id, u.priority, u.id`);
  return result.rows.map((row) => ({
    object: 'upstream_account', id: Number(row.id), group_id: Number(row.group_id), group_name: row.group_name, name: row.name,
    protocol: row.protocol, base_url: row.base_url, models: row.models, priority: row.priority, weight: row.weight, status: row.status,
    requests_24h: Number(row.requests_24h), last_used_at: row.last_used_at?.toISOString() ?? null, created_at: row.created_at.toISOString(),
    provider: row.provider, api_version: row.api_version,
    last_check: row.last_check_at ? { at: row.last_check_at.toISOString(), ok: row.last_check_ok === true, message: row.last_check_message } : null,
  }));
}
