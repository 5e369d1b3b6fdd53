/** SQL of key management; every statement is scoped by account, so another account's key is simply not found. */
import type { Pool, PoolClient } from 'pg';
import { groupUsableSql } from '../auth/group-access';

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
  status: 'active' | 'disabled' | 'revoked';
  expires_at: Date | null;
  created_at: Date;
  updated_at: Date;
  last_used_at: Date | null;
}

const COLUMNS = `k.id, k.account_id, k.group_id, g.name AS group_name, k.name, k.secret_hmac, k.secret_encrypted, k.secret_last4,
  k.quota_credits, k.spent_credits, k.rate_limit_5h, k.rate_limit_1d, k.rate_limit_7d, k.ip_whitelist, k.ip_blacklist,
  k.allowed_models, ${groupUsableSql('k.account_id')} AS group_granted,
  k.status, k.expires_at, k.created_at, k.updated_at, k.last_used_at`;

export async function listKeys(db: Pool, accountId: number): Promise<ApiKeyRow[]> {
  const result = await db.query<ApiKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys k JOIN routing_groups g ON g.id = k.group_id WHERE k.account_id = $1 ORDER BY k.id`, [accountId]);
  return result.rows;
}

export async function findKey(db: Pool | PoolClient, accountId: number, keyId: number, options: { forUpdate?: boolean } = {}): Promise<ApiKeyRow | undefined> {
  const result = await db.query<ApiKeyRow>(
    `SELECT ${COLUMNS} FROM api_keys k JOIN routing_groups g ON g.id = k.group_id
      WHERE k.account_id = $1 AND k.id = $2${options.forUpdate ? ' FOR UPDATE OF k' : ''}`, [accountId, keyId]);
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
  status?: 'active' | 'disabled' | 'revoked';
  secret?: { hmac: string; encrypted: string; last4: string };
}

export async function updateKey(client: PoolClient, keyId: number, changes: KeyChanges): Promise<void> {
  const sets: string[] = [];
  const values: unknown[] = [];
  const set = (column: string, value: unknown) => { values.push(value); sets.push(`${column} = $${values.length}`); };
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
  await client.query(`UPDATE api_keys SET ${sets.join(', ')}, updated_at = now() WHERE id = $${values.length}`, values);
}

export async function deleteKey(db: Pool, accountId: number, keyId: number): Promise<{ secretHmac: string } | undefined> {
  const result = await db.query<{ secret_hmac: string }>(
    'DELETE FROM api_keys WHERE account_id = $1 AND id = $2 RETURNING secret_hmac', [accountId, keyId]);
  return result.rows[0] ? { secretHmac: result.rows[0].secret_hmac } : undefined;
}

