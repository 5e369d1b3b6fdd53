/**
 * A billing worker in its own process, configured from the environment, for the kill-and-restart
 * tests (until `workers/index.ts` exists). Prints `ready` once consuming; SIGTERM closes it cleanly.
 * BILLING_TEST_COMMIT_DELAY_MS holds every batch transaction open that long before COMMIT, so a
 * SIGKILL lands inside a transaction.
 */
import { loadConfig } from '../../../src/config';
import { createPool } from '../../../src/db/pool';
import { createLogger } from '../../../src/http/logger';
import { createRedis } from '../../../src/redis/connection';
import { createRedisKeys } from '../../../src/redis/keys';
import { startBillingWorker } from '../../../workers/billing-worker';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const db = createPool(config.databaseUrl, 5);
  const redis = createRedis(config.redis);
  const logger = createLogger(config.logLevel);
  const delayMs = Number(process.env.BILLING_TEST_COMMIT_DELAY_MS ?? '0');
  const worker = await startBillingWorker(
    { config, db, redis, redisKeys: createRedisKeys(config.redisPrefix), logger },
    {
      concurrency: Number(process.env.BILLING_TEST_CONCURRENCY ?? '20'),
      lockDurationMs: Number(process.env.BILLING_TEST_LOCK_MS ?? '30000'),
      stalledIntervalMs: Number(process.env.BILLING_TEST_STALLED_MS ?? '15000'),
      beforeCommit: delayMs > 0 ? () => new Promise((resolve) => setTimeout(resolve, delayMs)) : undefined,
    },
  );
  process.stdout.write('ready\n');
  process.once('SIGTERM', () => {
    void worker.close().then(async () => {
      redis.disconnect();
      await db.end();
      process.exit(0);
    });
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`billing worker process failed: ${String(error)}\n`);
  process.exit(1);
});
