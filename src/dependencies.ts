/** Everything a process is built from, injected (no module-level singletons). */
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import type { SecretCrypto } from './auth/secret-crypto';
import type { Catalog } from './catalog/catalog';
import type { Config } from './config';
import type { Logger } from './http/logger';
import type { Metrics } from './http/metrics';
import type { RedisKeys } from './redis/keys';
import type { ObjectStorage } from './storage/object-storage';

export interface Clock {
  /** Unix milliseconds. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

export interface Dependencies {
  config: Config;
  /** The primary: every write, and every read that must see them (money, auth, admission). */
  db: Pool;
  /**
   * DATABASE_READ_URL's pool (a replica), when set: the console's aggregates and listings, which
   * may lag the primary by the replica's delay. Read through {@link readPool}.
   */
  readDb?: Pool;
  /** Commands and scripts. */
  redis: Redis;
  /** A second connection in subscriber mode (pub/sub). */
  subscriber: Redis;
  redisKeys: RedisKeys;
  storage: ObjectStorage;
  logger: Logger;
  metrics: Metrics;
  clock: Clock;
  catalog: Catalog;
  crypto: SecretCrypto;
}

/** The pool for console aggregates and listings: the read replica when configured, else the primary. */
export function readPool(deps: Pick<Dependencies, 'db' | 'readDb'>): Pool {
  return deps.readDb ?? deps.db;
}
