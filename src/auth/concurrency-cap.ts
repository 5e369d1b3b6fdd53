/** Account concurrency caps by tier (interface section 8); enterprise accounts normally set their own. */
import type { Tier } from './authenticated-key';

const TIER_CAPS: Record<Tier, number> = { free: 5, pro: 25, max: 100, enterprise: 500 };

export function concurrencyCap(tier: Tier, accountCap: number | null): number {
  return accountCap ?? TIER_CAPS[tier];
}
