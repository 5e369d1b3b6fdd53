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
  db: Pool;
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
