/**
 * A top-up as operators make it: the ledger entry (the truth) and then the Redis wallet cache that
 * admission reads, so the new credits can be spent at once rather than after the next reconcile.
 */
import type { Dependencies } from '../dependencies';
import { topUp } from './top-up';
import { createWalletCache } from '../limits/wallet-cache';

export async function topUpAccount(
  deps: Pick<Dependencies, 'db' | 'redis' | 'redisKeys'>,
  accountId: number,
  credits: number,
  reference: string | null = null,
): Promise<{ balanceCredits: number; walletCacheUpdated: boolean }> {
  const balanceCredits = await topUp(deps.db, accountId, credits, reference);
  try {
    // A cache that does not exist yet is loaded from PostgreSQL on first use: nothing to adjust then.
    await createWalletCache(deps).adjust(accountId, credits);
    return { balanceCredits, walletCacheUpdated: true };
  } catch {
    // Redis unreachable: the reconciler rebuilds the cache from the ledger.
    return { balanceCredits, walletCacheUpdated: false };
  }
}
