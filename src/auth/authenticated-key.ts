/** What the gateway knows about a caller once its key is looked up (cached per process). */
import type { ModelAllowlist } from './model-allowlist';

/** `group_not_granted`: the key's routing group is private and no longer granted to its account. */
export type KeyStatus = 'active' | 'disabled' | 'revoked' | 'expired' | 'group_not_granted';
export type Tier = 'free' | 'pro' | 'max' | 'enterprise';

export interface AuthenticatedKey {
  keyId: number;
  accountId: number;
  accountKind: 'user' | 'organization';
  tier: Tier;
  /** Effective account concurrency cap (tier default unless the account sets one). */
  concurrencyCap: number;
  groupId: number;
  groupName: string;
  /** The one family the group routes; null for a group that routes every model (`default`). */
  groupFamily: string | null;
  status: KeyStatus;
  /** Unix ms, or null for never. */
  expiresAt: number | null;
  /** Credits; 0 = unlimited. */
  quotaCredits: number;
  rateLimits: { fiveHours: number; oneDay: number; sevenDays: number };
  ipWhitelist: string[];
  ipBlacklist: string[];
  /** The lookup HMAC: cache key and invalidation message. */
  secretHmac: string;
  /** The key's model allowlist, compiled once per cache load (matches every model when empty). */
  allowedModels: ModelAllowlist;
  /** The request log keeps this key's request and response bodies (operator-allowed; the key's setting, else the account's). */
  keepRequestBodies?: boolean;
}
