/**
 * Builds a process's dependencies from configuration (API process, worker, admin CLI). Fails with one
 * clear line when PostgreSQL or Redis cannot be reached.
 */
import { createSecretCrypto } from '../auth/secret-crypto';
import { Catalog } from '../catalog/catalog';
import { DEFAULT_CATALOG } from '../catalog/default-catalog';
import type { Config, RedisNode, RedisTarget } from '../config';
import { systemClock, type Dependencies } from '../dependencies';
import { createLogger } from '../http/logger';
import { createMetrics } from '../http/metrics';
import { createPool } from '../db/pool';
import { pingDatabase } from '../db/repositories/health';
import { createRedis } from '../redis/connection';
import { createRedisKeys } from '../redis/keys';
import { createObjectStorage } from '../storage/object-storage';

export class ServiceUnreachableError extends Error {}

export async function checkReachable(config: Config, dependencies: Pick<Dependencies, 'db' | 'readDb' | 'redis'>): Promise<void> {
  try {
    await pingDatabase(dependencies.db);
  } catch (error) {
    throw new ServiceUnreachableError(
      `PostgreSQL is not reachable at ${redactUrl(config.databaseUrl)} (${(error as Error).message}); start it, e.g. docker compose up -d postgres redis`,
    );
  }
  if (dependencies.readDb && config.databaseReadUrl) {
    try {
      await pingDatabase(dependencies.readDb);
    } catch (error) {
      throw new ServiceUnreachableError(
        `DATABASE_READ_URL: PostgreSQL is not reachable at ${redactUrl(config.databaseReadUrl)} (${(error as Error).message})`,
      );
    }
  }
  try {
    await Promise.race([
      dependencies.redis.ping(),
      new Promise((_, reject) => setTimeout(() => reject(new Error('no answer in 3 s')), 3_000)),
    ]);
  } catch (error) {
    throw new ServiceUnreachableError(
      `Redis is not reachable at ${describeRedisTarget(config.redis)} (${(error as Error).message}); start it, e.g. docker compose up -d postgres redis`,
    );
  }
}

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}

/** Where Redis is, for a log line, without its password. */
export function describeRedisTarget(target: RedisTarget): string {
  const list = (nodes: RedisNode[]) => nodes.map((node) => `${node.host}:${node.port}`).join(',');
  if (target.kind === 'sentinel') return `primary "${target.name}" of sentinels ${list(target.sentinels)}`;
  if (target.kind === 'cluster') return `cluster ${list(target.nodes)}`;
  return redactUrl(target.url);
}

export function buildDependencies(config: Config, options: { processName: string; s3Endpoint?: string }): Dependencies {
  const logger = createLogger(config.logLevel).child({ process: options.processName });
  const crypto = createSecretCrypto(config.encryptionKey, config.hmacSecret);
  return {
    config,
    db: createPool(config.databaseUrl, config.databasePoolSize),
    ...(config.databaseReadUrl ? { readDb: createPool(config.databaseReadUrl, config.databasePoolSize) } : {}),
    redis: createRedis(config.redis, { name: `${options.processName}-commands` }),
    subscriber: createRedis(config.redis, { waits: true, name: `${options.processName}-subscriber` }),
    redisKeys: createRedisKeys(config.redisPrefix),
    storage: createObjectStorage({
      endpoint: options.s3Endpoint ?? config.s3.endpoint ?? `http://127.0.0.1:${config.s3.embeddedPort}`,
      region: config.s3.region,
      bucket: config.s3.bucket,
      accessKeyId: config.s3.accessKeyId,
      secretAccessKey: config.s3.secretAccessKey,
    }),
    logger,
    metrics: createMetrics({ defaultMetrics: true }),
    clock: systemClock,
    catalog: new Catalog(DEFAULT_CATALOG),
    crypto,
  };
}

export async function closeDependencies(deps: Dependencies): Promise<void> {
  deps.subscriber.disconnect();
  deps.redis.disconnect();
  deps.storage.destroy();
  await deps.db.end().catch(() => undefined);
  await deps.readDb?.end().catch(() => undefined);
}
