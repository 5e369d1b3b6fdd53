/** The benchmark's view of the billing queue: waits until the worker has settled every usage event. */
import { Queue } from 'bullmq';
import { BILLING_QUEUE_NAME } from '../../src/billing/billing-queue';
import { createRedis } from '../../src/redis/connection';
import { createRedisKeys } from '../../src/redis/keys';

export interface BillingBacklog {
  /** Resolves once no billing job waits or runs (or after `timeoutMs`), with the seconds it took. */
  drain(timeoutMs?: number): Promise<number>;
  close(): Promise<void>;
}

export function createBillingBacklog(env: NodeJS.ProcessEnv): BillingBacklog {
  const connection = createRedis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { forBullmq: true, name: 'bench-billing-backlog' });
  const queue = new Queue(BILLING_QUEUE_NAME, { connection, prefix: createRedisKeys(env.REDIS_PREFIX).bullPrefix() });
  return {
    async drain(timeoutMs = 120_000) {
      const started = Date.now();
      for (;;) {
        const counts = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children');
        const open = Object.values(counts).reduce((sum, count) => sum + count, 0);
        if (open === 0 || Date.now() - started > timeoutMs) return Number(((Date.now() - started) / 1000).toFixed(1));
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    },
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}
