/**
 * Run as a child process by concurrency.test.ts: admits LEASES requests for KEY_ID, prints `held`,
 * then waits to be killed (a crashed API process holding leases).
 */
import { createSecretCrypto } from '../../../src/auth/secret-crypto';
import { loadAuthenticatedKeyById } from '../../../src/auth/load-authenticated-key';
import { Catalog } from '../../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../../src/catalog/default-catalog';
import { loadConfig } from '../../../src/config';
import { createPool } from '../../../src/db/pool';
import { systemClock, type Dependencies } from '../../../src/dependencies';
import { createLogger } from '../../../src/http/logger';
import { createMetrics } from '../../../src/http/metrics';
import { createAdmission } from '../../../src/limits/create-admission';
import { createRedis } from '../../../src/redis/connection';
import { createRedisKeys } from '../../../src/redis/keys';
import { createObjectStorage } from '../../../src/storage/object-storage';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const deps: Dependencies = {
    config,
    db: createPool(config.databaseUrl, 2),
    redis: createRedis(config.redis),
    subscriber: createRedis(config.redis),
    redisKeys: createRedisKeys(config.redisPrefix),
    storage: createObjectStorage({
      endpoint: 'http://127.0.0.1:1',
      region: config.s3.region,
      bucket: config.s3.bucket,
      accessKeyId: 'x',
      secretAccessKey: 'x',
    }),
    logger: createLogger('silent'),
    metrics: createMetrics(),
    clock: systemClock,
    catalog: new Catalog(DEFAULT_CATALOG),
    crypto: createSecretCrypto(config.encryptionKey, config.hmacSecret),
  };
  const key = await loadAuthenticatedKeyById(deps.db, Number(process.env.KEY_ID), Date.now());
  if (!key) throw new Error('key not found');
  const admission = createAdmission(deps);
  for (let i = 0; i < Number(process.env.LEASES); i++) {
    await admission.admit({ key, clientIp: '127.0.0.1', requestId: `holder-${process.pid}-${i}`, reserveCredits: 1_000, takesLease: true });
  }
  process.stdout.write('held\n');
  setInterval(() => undefined, 60_000);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
