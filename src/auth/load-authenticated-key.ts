/** The one query behind authentication: the key row joined with its account, routing group and the account's grant of it. */
import type { Pool } from 'pg';
import type { AuthenticatedKey, KeyStatus, Tier } from './authenticated-key';
import { concurrencyCap } from './concurrency-cap';
import { groupUsableSql } from './group-access';
import { compileModelAllowlist } from './model-allowlist';

interface Row {
  id: number;
  account_id: number;
  group_id: number;
  secret_hmac: string;
  status: 'active' | 'disabled' | 'revoked';
  expires_at: Date | null;
  quota_credits: number;
  rate_limit_5h: number;
  rate_limit_1d: number;
  rate_limit_7d: number;
  ip_whitelist: string[];
  ip_blacklist: string[];
  kind: 'user' | 'organization';
  tier: Tier;
  concurrency_cap: number | null;
  group_name: string;
  group_family: string | null;
  group_granted: boolean;
  allowed_models: string[];
  keep_request_bodies: boolean;
}

const SELECT = `SELECT k.id, k.account_id, k.group_id, k.secret_hmac, k.status, k.expires_at, k.quota_credits,
    k.rate_limit_5h, k.rate_limit_1d, k.rate_limit_7d, k.ip_whitelist, k.ip_blacklist,
    k.allowed_models, a.kind, a.tier, a.concurrency_cap, g.name AS group_name, g.family AS group_family,
    ${groupUsableSql('k.account_id')} AS group_granted,
    (a.request_bodies_allowed AND coalesce(k.keep_request_bodies, a.keep_request_bodies)) AS keep_request_bodies
  FROM api_keys k JOIN accounts a ON a.id = k.account_id JOIN routing_groups g ON g.id = k.group_id`;

function toAuthenticatedKey(row: Row, nowMs: number): AuthenticatedKey {
  const expiresAt = row.expires_at === null ? null : row.expires_at.getTime();
  let status: KeyStatus = row.status === 'active' && expiresAt !== null && expiresAt <= nowMs ? 'expired' : row.status;
  if (status === 'active' && !row.group_granted) status = 'group_not_granted';
  return {
    keyId: Number(row.id),
    accountId: Number(row.account_id),
    accountKind: row.kind,
    tier: row.tier,
    concurrencyCap: concurrencyCap(row.tier, row.concurrency_cap),
    groupId: Number(row.group_id),
    groupName: row.group_name,
    groupFamily: row.group_family,
    status,
    expiresAt,
    quotaCredits: row.quota_credits,
    rateLimits: { fiveHours: row.rate_limit_5h, oneDay: row.rate_limit_1d, sevenDays: row.rate_limit_7d },
    // Frozen: compiled IP rules are memoized by array identity, so the arrays must never change.
    ipWhitelist: Object.freeze([...row.ip_whitelist]) as string[],
    ipBlacklist: Object.freeze([...row.ip_blacklist]) as string[],
    secretHmac: row.secret_hmac,
    allowedModels: compileModelAllowlist(row.allowed_models),
    keepRequestBodies: row.keep_request_bodies,
  };
}

export async function loadAuthenticatedKeyByHmac(db: Pool, secretHmac: string, nowMs: number): Promise<AuthenticatedKey | undefined> {
  const result = await db.query<Row>(`${SELECT} WHERE k.secret_hmac = $1`, [secretHmac]);
  return result.rows[0] ? toAuthenticatedKey(result.rows[0], nowMs) : undefined;
}

export async function loadAuthenticatedKeyById(db: Pool, keyId: number, nowMs: number): Promise<AuthenticatedKey | undefined> {
  const result = await db.query<Row>(`${SELECT} WHERE k.id = $1`, [keyId]);
  return result.rows[0] ? toAuthenticatedKey(result.rows[0], nowMs) : undefined;
}
