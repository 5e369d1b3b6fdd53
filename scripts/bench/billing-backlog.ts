/** The benchmark's view of the usage streams: waits until the worker has settled every usage event. */
import { createRedis } from '../../src/redis/connection';
import { ALL_USAGE_SHARDS, createRedisKeys } from '../../src/redis/keys';

export interface BillingBacklog {
  /** Resolves once every usage stream is empty (or after `timeoutMs`), with the seconds it took. */
  drain(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

export function createBillingBacklog(env: NodeJS.ProcessEnv): BillingBacklog {
  const redis = createRedis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { name: 'bench-billing-backlog' });
  const keys = createRedisKeys(env.REDIS_PREFIX);
  return {
    async drain(timeoutMs = 120_000) {
      const started = Date.now();
      for (;;) {
        // Workers delete an entry once written: the streams' lengths are the backlog.
        const lengths = await Promise.all(ALL_USAGE_SHARDS.map((shard) => redis.xlen(keys.usageStream(shard))));
        const open = lengths.reduce((sum, length) => sum + length, 0);
        if (open === 0 || Date.now() - started > timeoutMs) return Number(((Date.now() - started) / 1000).toFixed(1));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
