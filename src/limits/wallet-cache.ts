/**
 * Keeps the Redis wallet cache in step with wallet changes made outside admission (top-ups,
 * refunds, adjustments, task holds and their releases): call after the ledger transaction commits.
 * A cache that is not loaded is left alone: it will be loaded from PostgreSQL, which has the change.
 */
import type { Dependencies } from '../dependencies';
import { loadRedisScript, runRedisScript, type RedisScript } from '../redis/redis-script';

export interface WalletCache {
  /** Returns the cached wallet after the change, or null when no cache was loaded. */
  adjust(accountId: number, deltaCredits: number): Promise<number | null>;
}

export function createWalletCache(deps: Pick<Dependencies, 'redis' | 'redisKeys'>): WalletCache {
  const script: RedisScript = loadRedisScript('adjust-wallet-1');
  return {
    async adjust(accountId, deltaCredits) {
      if (!Number.isSafeInteger(deltaCredits)) throw new Error('wallet changes are integer credits');
      const result = await runRedisScript(deps.redis, script, [deps.redisKeys.account(accountId)], [deltaCredits]);
      return result === null ? null : Number(result);
    },
  };
}
