/** The benchmark's view of the usage stream: waits until the worker has settled every usage event. */
import { createRedis } from '../../src/redis/connection';
import { createRedisKeys } from '../../src/redis/keys';

export interface BillingBacklog {
  /** Resolves once the usage stream is empty (or after `timeoutMs`), with the seconds it took. */
  drain(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

export function createBillingBacklog(env: NodeJS.ProcessEnv): BillingBacklog {
  const redis = createRedis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { name: 'bench-billing-backlog' });
  const stream = createRedisKeys(env.REDIS_PREFIX).usageStream();
  return {
    async drain(timeoutMs = 120_000) {
      const started = Date.now();
      for (;;) {
        // Workers delete an entry once written: the stream's length is the backlog.
        const open = await redis.xlen(stream);
        if (open === 0 || Date.now() - started > timeoutMs) return Number(((Date.now() - started) / 1000).toFixed(1));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    async close() {
      redis.disconnect();
    },
  };
}
