/** A key as the management API shows it: masked secret (unless this is the one plaintext answer), USD amounts, derived status. */
import type { ApiKeyRow } from '../db/repositories/api-keys';
import { maskKey } from '../auth/key-secret';

/** `group_not_granted`: the key's private routing group is no longer granted to the account (issue 21). */
export type PresentedStatus = 'active' | 'disabled' | 'revoked' | 'expired' | 'group_not_granted';

export function presentedStatus(row: Pick<ApiKeyRow, 'status' | 'expires_at' | 'group_granted'>, nowMs: number): PresentedStatus {
  if (row.status === 'active' && row.expires_at !== null && row.expires_at.getTime() <= nowMs) return 'expired';
  if (row.status === 'active' && !row.group_granted) return 'group_not_granted';
  return row.status;
}

/** Credits → USD for display (JSON numbers); the exact figure is in the `_credits` sibling. */
function usd(credits: number): number {
  return credits / 1_000_000;
}

export function presentKey(row: ApiKeyRow, nowMs: number, plaintext?: string): Record<string, unknown> {
  return {
    id: Number(row.id),
    object: 'api_key',
    name: row.name,
    key: plaintext ?? maskKey(row.secret_last4),
    group_id: Number(row.group_id),
    group_name: row.group_name,
    status: presentedStatus(row, nowMs),
    quota: usd(row.quota_credits),
    quota_credits: row.quota_credits,
    spent: usd(row.spent_credits),
    spent_credits: row.spent_credits,
    rate_limit_5h: usd(row.rate_limit_5h),
    rate_limit_1d: usd(row.rate_limit_1d),
    rate_limit_7d: usd(row.rate_limit_7d),
    ip_whitelist: row.ip_whitelist,
    ip_blacklist: row.ip_blacklist,
    allowed_models: row.allowed_models,
    expires_at: row.expires_at?.toISOString() ?? null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
  };
}
