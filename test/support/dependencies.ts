/**
 * Real dependencies for an integration test: a fresh PostgreSQL database, a Redis key prefix, the
 * embedded S3 server on a free port, the default catalog, and generated secrets.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createSecretCrypto } from '../../src/auth/secret-crypto';
import { Catalog } from '../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import { loadConfig, type Config } from '../../src/config';
import { systemClock, type Dependencies } from '../../src/dependencies';
import { createLogger } from '../../src/http/logger';
import { createMetrics } from '../../src/http/metrics';
import { createPool } from '../../src/db/pool';
import { createRedis } from '../../src/redis/connection';
import { startEmbeddedS3, type EmbeddedS3 } from '../../src/storage/embedded-s3';
import { createObjectStorage } from '../../src/storage/object-storage';
import { createTestDatabase, type TestDatabase } from './database';
import { createTestRedis, TEST_REDIS_URL, type TestRedis } from './redis';

export interface TestDependencies extends Dependencies {
  testDb: TestDatabase;
  testRedis: TestRedis;
  s3?: EmbeddedS3;
  /** Environment used to build `config`, so spawned processes (workers, second API) share it. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function createTestDependencies(options: { s3?: boolean; env?: Record<string, string> } = {}): Promise<TestDependencies> {
  const testDb = await createTestDatabase();
  const testRedis = await createTestRedis();
  const s3 = options.s3
    ? await startEmbeddedS3({ port: 0, directory: mkdtempSync(path.join(os.tmpdir(), 'gw-s3-')), environment: 'test' })
    : undefined;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: testDb.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: testRedis.prefix,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    HMAC_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'silent',
    S3_BUCKET: `gw-test-${randomBytes(4).toString('hex')}`,
    ...(s3 ? { S3_ENDPOINT: s3.endpoint } : {}),
    ...options.env,
  };
  const config: Config = loadConfig(env);
  const storage = createObjectStorage({
    endpoint: config.s3.endpoint ?? 'http://127.0.0.1:1',
    region: config.s3.region,
    bucket: config.s3.bucket,
    accessKeyId: config.s3.accessKeyId,
    secretAccessKey: config.s3.secretAccessKey,
  });
  if (s3) await storage.ensureBucket();
  const subscriber = createRedis(TEST_REDIS_URL, { waits: true });
  // DATABASE_READ_URL given: a pool of its own, as buildDependencies makes.
  const readDb = config.databaseReadUrl ? createPool(config.databaseReadUrl, 4) : undefined;
  const deps: TestDependencies = {
    config,
    db: testDb.pool,
    ...(readDb ? { readDb } : {}),
    redis: testRedis.redis,
    subscriber,
    redisKeys: testRedis.keys,
    storage,
    logger: createLogger('silent'),
    metrics: createMetrics(),
    clock: systemClock,
    catalog: new Catalog(DEFAULT_CATALOG),
    crypto: createSecretCrypto(config.encryptionKey, config.hmacSecret),
    testDb,
    testRedis,
    s3,
    env,
    async close() {
      subscriber.disconnect();
      storage.destroy();
      await readDb?.end().catch(() => undefined);
      await s3?.close().catch(() => undefined);
      await testRedis.cleanup();
      await testDb.drop();
    },
  };
  return deps;
}
