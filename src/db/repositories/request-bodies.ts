/**
 * Kept request and response bodies in PostgreSQL (`request_bodies`, day partitions beside the
 * records): the worker's batch write, one request's bodies, retention, and the settings that decide
 * whether bodies are kept (`accounts.request_bodies_allowed` / `keep_request_bodies`, a key's
 * `api_keys.keep_request_bodies` override).
 */
import type { Pool } from 'pg';
import { deleteOlder, dropPartitionsBefore } from '../partitions';
import type { Queryable } from '../queryable';

export interface StoredBodies {
  request_body: string | null;
  response_body: string | null;
  stream_events: number | null;
  truncated: boolean;
}

export async function findRequestBodies(db: Queryable, requestId: string, createdAt: Date): Promise<StoredBodies | undefined> {
  const bodies = await db.query<StoredBodies>(
    'SELECT request_body, response_body, stream_events, truncated FROM request_bodies WHERE request_id = $1 AND created_at = $2',
    [requestId, createdAt],
  );
  return bodies.rows[0];
}

const INSERT_BODIES = `INSERT INTO request_bodies (request_id, account_id, request_body, response_body, stream_events, truncated, created_at)
  SELECT r."requestId", r."accountId", r.bodies->>'request', r.bodies->>'response', (r.bodies->>'streamEvents')::integer,
    coalesce((r.bodies->>'truncated')::boolean, false), to_timestamp(r."startedAt" / 1000.0)
  FROM jsonb_to_recordset($1::jsonb) AS r("requestId" text, "accountId" bigint, bodies jsonb, "startedAt" bigint)
  WHERE r.bodies IS NOT NULL
  ON CONFLICT DO NOTHING`;

/**
 * Inserts the kept bodies of a batch of records, given as the JSON array `insertRequestRecords` takes
 * (records without `bodies` are skipped); bodies already there stay.
 */
export async function insertRequestBodies(db: Queryable, recordsJson: string): Promise<void> {
  await db.query(INSERT_BODIES, [recordsJson]);
}

/** Retention: drops the day partitions of bodies that end by the cutoff, then deletes older rows in small batches. */
export async function deleteBodiesBefore(db: Pool, cutoffMs: number): Promise<{ partitionsDropped: string[]; rowsDeleted: number }> {
  const partitionsDropped = await dropPartitionsBefore(db, 'request_bodies', cutoffMs);
  return { partitionsDropped, rowsDeleted: await deleteOlder(db, 'request_bodies', 'request_id, created_at', cutoffMs) };
}

export interface BodySettings {
  /** An operator allows the account to keep bodies. */
  allowed: boolean;
  /** The account keeps them (for every key without an override). */
  keep: boolean;
  /** Keys that override the account, by id. */
  keyOverrides: Array<{ apiKeyId: number; keep: boolean }>;
}

/** undefined: no such account. */
export async function readBodySettings(db: Queryable, accountId: number): Promise<BodySettings | undefined> {
  const account = await db.query<{ request_bodies_allowed: boolean; keep_request_bodies: boolean }>(
    'SELECT request_bodies_allowed, keep_request_bodies FROM accounts WHERE id = $1',
    [accountId],
  );
  const row = account.rows[0];
  if (!row) return undefined;
  const keys = await db.query<{ id: number; keep_request_bodies: boolean }>(
    'SELECT id, keep_request_bodies FROM api_keys WHERE account_id = $1 AND keep_request_bodies IS NOT NULL ORDER BY id',
    [accountId],
  );
  return {
    allowed: row.request_bodies_allowed,
    keep: row.keep_request_bodies,
    keyOverrides: keys.rows.map((key) => ({ apiKeyId: Number(key.id), keep: key.keep_request_bodies })),
  };
}

/**
 * The account's own setting; turning it on only where an operator allows it. Returns the value it
 * replaced (for the audit log); undefined: refused (or no such account).
 */
export async function setAccountKeepsBodies(db: Queryable, accountId: number, keep: boolean): Promise<{ before: boolean } | undefined> {
  const updated = await db.query<{ before: boolean }>(
    `UPDATE accounts a SET keep_request_bodies = $2
       FROM (SELECT id, keep_request_bodies FROM accounts WHERE id = $1 FOR UPDATE) old
      WHERE a.id = old.id AND (a.request_bodies_allowed OR NOT $2)
      RETURNING old.keep_request_bodies AS before`,
    [accountId, keep],
  );
  const row = updated.rows[0];
  return row ? { before: row.before } : undefined;
}

export async function accountMayKeepBodies(db: Queryable, accountId: number): Promise<boolean> {
  const allowed = await db.query<{ ok: boolean }>('SELECT request_bodies_allowed AS ok FROM accounts WHERE id = $1', [accountId]);
  return allowed.rows[0]?.ok === true;
}

/** A key's override (`null`: follow the account); returns the override it replaced. Undefined: no such key of this account. */
export async function setKeyKeepsBodies(
  db: Queryable,
  accountId: number,
  keyId: number,
  keep: boolean | null,
): Promise<{ before: boolean | null } | undefined> {
  const updated = await db.query<{ before: boolean | null }>(
    `UPDATE api_keys k SET keep_request_bodies = $3, updated_at = now()
       FROM (SELECT id, keep_request_bodies FROM api_keys WHERE id = $1 AND account_id = $2 FOR UPDATE) old
      WHERE k.id = old.id
      RETURNING old.keep_request_bodies AS before`,
    [keyId, accountId, keep],
  );
  const row = updated.rows[0];
  return row ? { before: row.before } : undefined;
}

export interface AccountBodySettings {
  allowed: boolean;
  keep: boolean;
}

/** The operator's settings of an account (absent: unchanged), before and after. Undefined: no such account. */
export async function setOperatorBodySettings(
  db: Queryable,
  accountId: number,
  settings: { allowed?: boolean; keep?: boolean },
): Promise<{ before: AccountBodySettings; after: AccountBodySettings } | undefined> {
  const updated = await db.query<{ before_allowed: boolean; before_keep: boolean; allowed: boolean; keep: boolean }>(
    `UPDATE accounts a SET request_bodies_allowed = coalesce($2, a.request_bodies_allowed), keep_request_bodies = coalesce($3, a.keep_request_bodies)
       FROM (SELECT id, request_bodies_allowed, keep_request_bodies FROM accounts WHERE id = $1 FOR UPDATE) old
      WHERE a.id = old.id
      RETURNING old.request_bodies_allowed AS before_allowed, old.keep_request_bodies AS before_keep,
                a.request_bodies_allowed AS allowed, a.keep_request_bodies AS keep`,
    [accountId, settings.allowed ?? null, settings.keep ?? null],
  );
  const row = updated.rows[0];
  return row
    ? { before: { allowed: row.before_allowed, keep: row.before_keep }, after: { allowed: row.allowed, keep: row.keep } }
    : undefined;
}
