/**
 * Upstream provider accounts (`upstream_accounts`): the routing directory's load, the operator's
 * changes and listings, verification results. Credentials stay encrypted here; callers decrypt.
 * `TProtocol` is the caller's protocol type (db/ names no other folder's types).
 */
import type { Queryable } from '../queryable';
import { updateColumns } from './update-columns';

export type UpstreamStatus = 'active' | 'disabled';

/** The `provider` of the accounts the bootstrap points at the provider simulator. */
export const SIMULATOR_PROVIDER = 'simulator';

export interface UpstreamAccountRow<TProtocol extends string = string> {
  id: number;
  groupId: number;
  name: string;
  protocol: TProtocol;
  baseUrl: string;
  credentialEncrypted: string;
  models: string[];
  priority: number;
  weight: number;
  status: UpstreamStatus;
  provider: string | null;
  apiVersion: string | null;
}

interface Row<TProtocol extends string> {
  id: number;
  group_id: number;
  name: string;
  protocol: TProtocol;
  base_url: string;
  credential_encrypted: string;
  models: string[];
  priority: number;
  weight: number;
  status: UpstreamStatus;
  provider: string | null;
  api_version: string | null;
}

const COLUMNS = 'id, group_id, name, protocol, base_url, credential_encrypted, models, priority, weight, status, provider, api_version';

function toAccount<TProtocol extends string>(row: Row<TProtocol>): UpstreamAccountRow<TProtocol> {
  return {
    id: Number(row.id),
    groupId: Number(row.group_id),
    name: row.name,
    protocol: row.protocol,
    baseUrl: row.base_url,
    credentialEncrypted: row.credential_encrypted,
    models: row.models,
    priority: row.priority,
    weight: row.weight,
    status: row.status,
    provider: row.provider,
    apiVersion: row.api_version,
  };
}

/** Every account, disabled ones included. */
export async function listUpstreamAccounts<TProtocol extends string = string>(
  db: Queryable,
): Promise<Array<UpstreamAccountRow<TProtocol>>> {
  const result = await db.query<Row<TProtocol>>(`SELECT ${COLUMNS} FROM upstream_accounts`);
  return result.rows.map(toAccount);
}

export async function findUpstreamAccount<TProtocol extends string = string>(
  db: Queryable,
  id: number,
): Promise<UpstreamAccountRow<TProtocol> | undefined> {
  const result = await db.query<Row<TProtocol>>(`SELECT ${COLUMNS} FROM upstream_accounts WHERE id = $1`, [id]);
  return result.rows[0] && toAccount(result.rows[0]);
}

export async function listActiveUpstreamIds(db: Queryable): Promise<number[]> {
  const result = await db.query<{ id: string }>("SELECT id FROM upstream_accounts WHERE status = 'active' ORDER BY id");
  return result.rows.map((row) => Number(row.id));
}

export async function insertUpstreamAccount(
  db: Queryable,
  input: {
    groupId: number;
    name: string;
    protocol: string;
    baseUrl: string;
    credentialEncrypted: string;
    models: string[];
    priority: number;
    weight: number;
    provider: string | null;
    apiVersion: string | null;
  },
): Promise<number> {
  const result = await db.query<{ id: number }>(
    `INSERT INTO upstream_accounts (group_id, name, protocol, base_url, credential_encrypted, models, priority, weight, provider, api_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
    [
      input.groupId,
      input.name,
      input.protocol,
      input.baseUrl,
      input.credentialEncrypted,
      input.models,
      input.priority,
      input.weight,
      input.provider,
      input.apiVersion,
    ],
  );
  return result.rows[0].id;
}

/** Sets only the given fields; false when there is no such account. */
export function updateUpstreamAccount(
  db: Queryable,
  id: number,
  changes: {
    name?: string;
    baseUrl?: string;
    apiVersion?: string;
    credentialEncrypted?: string;
    models?: string[];
    priority?: number;
    weight?: number;
    status?: UpstreamStatus;
  },
): Promise<boolean> {
  return updateColumns(db, 'upstream_accounts', id, {
    name: changes.name,
    base_url: changes.baseUrl,
    api_version: changes.apiVersion,
    credential_encrypted: changes.credentialEncrypted,
    models: changes.models,
    priority: changes.priority,
    weight: changes.weight,
    status: changes.status,
  });
}

/** The account's last verification (add, change, Test): now, whether it passed, what it said. */
export async function recordUpstreamCheck(db: Queryable, id: number, check: { ok: boolean; message: string }): Promise<void> {
  await db.query('UPDATE upstream_accounts SET last_check_at = now(), last_check_ok = $2, last_check_message = $3 WHERE id = $1', [
    id,
    check.ok,
    check.message,
  ]);
}

export interface UpstreamSummary {
  id: number;
  groupId: number;
  groupName: string;
  name: string;
  protocol: string;
  baseUrl: string;
  models: string[];
  priority: number;
  weight: number;
  status: UpstreamStatus;
  createdAt: Date;
  provider: string | null;
  apiVersion: string | null;
  lastCheck: { at: Date; ok: boolean; message: string | null } | null;
  requests24h: number;
  lastUsedAt: Date | null;
}

/**
 * Every account with its group's name, its last verification and its traffic: requests started in
 * the last 24 hours and the last one's start. The traffic figures read `usage_rows` (the usage family).
 */
export async function listUpstreamSummaries(db: Queryable): Promise<UpstreamSummary[]> {
  const result = await db.query<{
    id: string;
    group_id: string;
    group_name: string;
    name: string;
    protocol: string;
    base_url: string;
    models: string[];
    priority: number;
    weight: number;
    status: UpstreamStatus;
    created_at: Date;
    requests_24h: string;
    last_used_at: Date | null;
    provider: string | null;
    api_version: string | null;
    last_check_at: Date | null;
    last_check_ok: boolean | null;
    last_check_message: string | null;
  }>(
    `SELECT u.id, u.group_id, g.name AS group_name, u.name, u.protocol, u.base_url, u.models, u.priority, u.weight, u.status, u.created_at,
            u.provider, u.api_version, u.last_check_at, u.last_check_ok, u.last_check_message,
            (SELECT count(*) FROM usage_rows r WHERE r.upstream_account_id = u.id AND r.started_at > now() - interval '24 hours') AS requests_24h,
            (SELECT max(r.started_at) FROM usage_rows r WHERE r.upstream_account_id = u.id) AS last_used_at
       FROM upstream_accounts u JOIN routing_groups g ON g.id = u.group_id
      ORDER BY u.group_id, u.priority, u.id`,
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    groupId: Number(row.group_id),
    groupName: row.group_name,
    name: row.name,
    protocol: row.protocol,
    baseUrl: row.base_url,
    models: row.models,
    priority: row.priority,
    weight: row.weight,
    status: row.status,
    createdAt: row.created_at,
    provider: row.provider,
    apiVersion: row.api_version,
    lastCheck: row.last_check_at ? { at: row.last_check_at, ok: row.last_check_ok === true, message: row.last_check_message } : null,
    requests24h: Number(row.requests_24h),
    lastUsedAt: row.last_used_at,
  }));
}

export interface UpstreamKinds {
  active: number;
  simulated: number;
}

/** How many accounts are active, and how many of those are the provider simulator (the console says so). */
export async function countSimulatedUpstreams(db: Queryable): Promise<UpstreamKinds> {
  const result = await db.query<{ active: string; simulated: string }>(
    `SELECT count(*) AS active, count(*) FILTER (WHERE provider = $1) AS simulated FROM upstream_accounts WHERE status = 'active'`,
    [SIMULATOR_PROVIDER],
  );
  return { active: Number(result.rows[0].active), simulated: Number(result.rows[0].simulated) };
}
