/**
 * API keys (`api_keys`): the lookup behind authentication, key management (every statement scoped
 * by account, so another account's key is simply not found), and the reads of admission, the
 * counters' rebuild, listings and the quick start.
 */
import type { Queryable } from '../queryable';
import type { AccountKind, AccountTier } from './accounts';
import { groupUsableSql } from './groups';

export type KeyRowStatus = 'active' | 'disabled' | 'revoked';

/** The key row joined with its account, routing group and the account's grant of that group. */
export interface AuthenticationRow {
  id: number;
  account_id: number;
  group_id: number;
  secret_hmac: string;
  status: KeyRowStatus;
  expires_at: Date | null;
  quota_credits: number;
  rate_limit_5h: number;
  rate_limit_1d: number;
  rate_limit_7d: number;
  ip_whitelist: string[];
  ip_blacklist: string[];
  kind: AccountKind;
  tier: AccountTier;
  concurrency_cap: number | null;
  group_name: string;
  group_family: string | null;
  group_granted: boolean;
  allowed_models: string[];
  keep_request_bodies: boolean;
}

const AUTHENTICATION_SELECT = `SELECT k.id, k.account_id, k.group_id, k.secret_hmac, k.status, k.expires_at, k.quota_credits,
    k.rate_limit_5h, k.rate_limit_1d, k.rate_limit_7d, k.ip_whitelist, k.ip_blacklist,
    k.allowed_models, a.kind, a.tier, a.concurrency_cap, g.name AS group_name, g.family AS group_family,
    ${groupUsableSql('k.account_id')} AS group_granted,
    (a.request_bodies_allowed AND coalesce(k.keep_request_bodies, a.keep_request_bodies)) AS keep_request_bodies
  FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN routing_groups g ON g.id = k.group_id`;

/** The one query behind authentication, by the secret's HMAC or by key id. */
export async function findAuthenticationRow(
  db: Queryable,
  by: { secretHmac: string } | { keyId: number },
): Promise<AuthenticationRow | undefined> {
  const result =
    'secretHmac' in by
      ? await db.query<AuthenticationRow>(`${AUTHENTICATION_SELECT} WHERE k.secret_hmac = $1`, [by.secretHmac])
      : await db.query<AuthenticationRow>(`${AUTHENTICATION_SELECT} WHERE k.id = $1`, [by.keyId]);
  return result.rows[0];
}

/** `last_used_at`: a hint for the console, not an audit trail. */
export async function touchKeyLastUsed(db: Queryable, keyId: number): Promise<void> {
  await db.query('UPDATE api_keys SET last_used_at = now() WHERE id = $1', [keyId]);
}

export interface NewKeyRow {
  accountId: number;
  groupId: number;
  name: string;
  secretHmac: string;
  secretEncrypted: string;
  secretLast4: string;
  quotaCredits: number;
  rateLimit5h: number;
  rateLimit1d: number;
  rateLimit7d: number;
  ipWhitelist: string[];
  ipBlacklist: string[];
  expiresAt: Date | null;
  allowedModels: string[];
}

/** Fails with PostgreSQL's 23505 when a key with this secret exists. */
export async function insertKey(db: Queryable, key: NewKeyRow): Promise<{ id: number; createdAt: Date }> {
  const result = await db.query<{ id: number; created_at: Date }>(
    `INSERT INTO api_keys (account_id, group_id, name, secret_hmac, secret_encrypted, secret_last4, quota_credits,
       rate_limit_5h, rate_limit_1d, rate_limit_7d, ip_whitelist, ip_blacklist, expires_at, allowed_models)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id, created_at`,
    [
      key.accountId,
      key.groupId,
      key.name,
      key.secretHmac,
      key.secretEncrypted,
      key.secretLast4,
      key.quotaCredits,
      key.rateLimit5h,
      key.rateLimit1d,
      key.rateLimit7d,
      key.ipWhitelist,
      key.ipBlacklist,
      key.expiresAt,
      key.allowedModels,
    ],
  );
  return { id: result.rows[0].id, createdAt: result.rows[0].created_at };
}

export interface ApiKeyRow {
  id: number;
  account_id: number;
  group_id: number;
  group_name: string;
  name: string;
  secret_hmac: string;
  secret_encrypted: string;
  secret_last4: string;
  quota_credits: number;
  spent_credits: number;
  rate_limit_5h: number;
  rate_limit_1d: number;
  rate_limit_7d: number;
  ip_whitelist: string[];
  ip_blacklist: string[];
  allowed_models: string[];
  /** Whether the key's account may use its routing group (public, or a private group granted to it). */
  group_granted: boolean;
  status: KeyRowStatus;
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = `k.id, k.account_id, k.group_id, g.name AS group_name, k.name, k.secret_hmac, k.secret_encrypted, k.secret_last4,
  k.quota_credits, k.spent_credits, k.rate_limit_5h, k.rate_limit_1d, k.rate_limit_7d, k.ip_whitelist, k.ip_blacklist,
  k.allowed_models, ${groupUsableSql('k.account_id')} AS group_granted,
  k.status, k.expires_at, k.created_at, k.updated_at, k.last_used_at`;

export async function listKeys(db: Queryable, accountId: number): Promise<ApiKeyRow[]> {
  const result = await db.query<ApiKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys k JOIN routing_groups g ON g.id = k.group_id WHERE k.account_id = $1 ORDER BY k.id`,
    [accountId],
  );
  return result.rows;
}

export async function findKey(
  db: Queryable,
  accountId: number,
  keyId: number,
  options: { forUpdate?: boolean } = {},
): Promise<ApiKeyRow | undefined> {
  const result = await db.query<ApiKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys k JOIN routing_groups g ON g.id = k.group_id
      WHERE k.account_id = $1 AND k.id = $2${options.forUpdate ? ' FOR UPDATE OF k' : ''}`,
    [accountId, keyId],
  );
  return result.rows[0];
}

export interface KeyChanges {
  name?: string;
  quotaCredits?: number;
  rateLimit5h?: number;
  rateLimit1d?: number;
  rateLimit7d?: number;
  ipWhitelist?: string[];
  ipBlacklist?: string[];
  allowedModels?: string[];
  /** Moves the key to another routing group (already checked usable by the account). */
  groupId?: number;
  /** undefined: unchanged; null: never expires. */
  expiresAt?: Date | null;
  status?: KeyRowStatus;
  secret?: { hmac: string; encrypted: string; last4: string };
}

export async function updateKey(db: Queryable, keyId: number, changes: KeyChanges): Promise<void> {
  const sets: string[] = [];
  const values: unknown[] = [];
  const set = (column: string, value: unknown) => {
    values.push(value);
    sets.push(`${column} = $${values.length}`);
  };
  if (changes.name !== undefined) set('name', changes.name);
  if (changes.quotaCredits !== undefined) set('quota_credits', changes.quotaCredits);
  if (changes.rateLimit5h !== undefined) set('rate_limit_5h', changes.rateLimit5h);
  if (changes.rateLimit1d !== undefined) set('rate_limit_1d', changes.rateLimit1d);
  if (changes.rateLimit7d !== undefined) set('rate_limit_7d', changes.rateLimit7d);
  if (changes.ipWhitelist !== undefined) set('ip_whitelist', changes.ipWhitelist);
  if (changes.ipBlacklist !== undefined) set('ip_blacklist', changes.ipBlacklist);
  if (changes.allowedModels !== undefined) set('allowed_models', changes.allowedModels);
  if (changes.groupId !== undefined) set('group_id', changes.groupId);
  if (changes.expiresAt !== undefined) set('expires_at', changes.expiresAt);
  if (changes.status !== undefined) set('status', changes.status);
  if (changes.secret !== undefined) {
    set('secret_hmac', changes.secret.hmac);
    set('secret_encrypted', changes.secret.encrypted);
    set('secret_last4', changes.secret.last4);
  }
  if (sets.length === 0) return;
  values.push(keyId);
  await db.query(`UPDATE api_keys SET ${sets.join(', ')}, updated_at = now() WHERE id = $${values.length}`, values);
}

export async function deleteKey(db: Queryable, accountId: number, keyId: number): Promise<{ secretHmac: string } | undefined> {
  const result = await db.query<{ secret_hmac: string }>('DELETE FROM api_keys WHERE account_id = $1 AND id = $2 RETURNING secret_hmac', [
    accountId,
    keyId,
  ]);
  return result.rows[0] ? { secretHmac: result.rows[0].secret_hmac } : undefined;
}

/** What admission and the counters' rebuild need of a key: its lifetime spend and whether this secret may still use it. */
export async function findKeySpendState(
  db: Queryable,
  accountId: number,
  keyId: number,
): Promise<{ spentCredits: number; secretHmac: string; status: KeyRowStatus } | undefined> {
  const result = await db.query<{ spent_credits: number; secret_hmac: string; status: KeyRowStatus }>(
    'SELECT spent_credits, secret_hmac, status FROM api_keys WHERE id = $1 AND account_id = $2',
    [keyId, accountId],
  );
  const row = result.rows[0];
  return row && { spentCredits: row.spent_credits, secretHmac: row.secret_hmac, status: row.status };
}

export async function listKeyIdsOfAccount(db: Queryable, accountId: number): Promise<number[]> {
  const result = await db.query<{ id: number }>('SELECT id FROM api_keys WHERE account_id = $1', [accountId]);
  return result.rows.map((row) => Number(row.id));
}

export async function findKeyName(db: Queryable, accountId: number, keyId: number): Promise<{ id: number; name: string } | undefined> {
  const result = await db.query<{ id: number; name: string }>('SELECT id, name FROM api_keys WHERE id = $1 AND account_id = $2', [
    keyId,
    accountId,
  ]);
  const row = result.rows[0];
  return row && { id: Number(row.id), name: row.name };
}

/** The account's keys that can be used now: active, unexpired at `now`, in a group the account may use. */
export async function listUsableKeysOfAccount(
  db: Queryable,
  accountId: number,
  now: Date,
): Promise<Array<{ id: number; groupId: number; allowedModels: string[] }>> {
  const result = await db.query<{ id: string; group_id: string; allowed_models: string[] }>(
    `SELECT k.id, k.group_id, k.allowed_models FROM api_keys k JOIN routing_groups g ON g.id = k.group_id
      WHERE k.account_id = $1 AND k.status = 'active' AND (k.expires_at IS NULL OR k.expires_at > $2)
        AND ${groupUsableSql('k.account_id')}`,
    [accountId, now],
  );
  return result.rows.map((row) => ({ id: Number(row.id), groupId: Number(row.group_id), allowedModels: row.allowed_models }));
}

/** A key's owner and its secret's reveal ciphertext, by key id alone (the caller checks the owner). */
export async function findKeySecret(db: Queryable, keyId: number): Promise<{ accountId: number; secretEncrypted: string } | undefined> {
  const result = await db.query<{ secret_encrypted: string; account_id: number }>(
    'SELECT secret_encrypted, account_id FROM api_keys WHERE id = $1',
    [keyId],
  );
  const row = result.rows[0];
  return row && { accountId: Number(row.account_id), secretEncrypted: row.secret_encrypted };
}

/** The first key named `bootstrap` (the quick start's): its account and its secret's reveal ciphertext. */
export async function findBootstrapKey(db: Queryable): Promise<{ accountId: number; secretEncrypted: string } | undefined> {
  const result = await db.query<{ account_id: string; secret_encrypted: string }>(
    "SELECT account_id, secret_encrypted FROM api_keys WHERE name = 'bootstrap' ORDER BY id LIMIT 1",
  );
  const row = result.rows[0];
  return row && { accountId: Number(row.account_id), secretEncrypted: row.secret_encrypted };
}

/** The secret HMACs of a group's keys, or of one account's keys in it. */
export async function listKeySecretHmacsInGroup(db: Queryable, groupId: number, accountId?: number): Promise<string[]> {
  const result =
    accountId === undefined
      ? await db.query<{ secret_hmac: string }>('SELECT secret_hmac FROM api_keys WHERE group_id = $1', [groupId])
      : await db.query<{ secret_hmac: string }>('SELECT secret_hmac FROM api_keys WHERE group_id = $1 AND account_id = $2', [
          groupId,
          accountId,
        ]);
  return result.rows.map((row) => row.secret_hmac);
}
