/** A key as authentication sees it, from the row joined with its account, routing group and the account's grant of it. */
import type { Pool } from 'pg';
import { findAuthenticationRow, type AuthenticationRow } from '../db/repositories/api-keys';
import type { AuthenticatedKey, KeyStatus } from './authenticated-key';
import { concurrencyCap } from './concurrency-cap';
import { compileModelAllowlist } from './model-allowlist';

function toAuthenticatedKey(row: AuthenticationRow, nowMs: number): AuthenticatedKey {
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
  const row = await findAuthenticationRow(db, { secretHmac });
  return row ? toAuthenticatedKey(row, nowMs) : undefined;
}

export async function loadAuthenticatedKeyById(db: Pool, keyId: number, nowMs: number): Promise<AuthenticatedKey | undefined> {
  const row = await findAuthenticationRow(db, { keyId });
  return row ? toAuthenticatedKey(row, nowMs) : undefined;
}
