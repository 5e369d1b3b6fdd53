/** Real Redis with a random key prefix per test, cleaned afterwards. */
import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { createRedis } from '../../src/redis/connection';
import { createRedisKeys, type RedisKeys } from '../../src/redis/keys';

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestRedis {
  redis: Redis;
  keys: RedisKeys;
  prefix: string;
  cleanup(): Promise<void>;
}

export async function createTestRedis(): Promise<TestRedis> {
  const prefix = `gwt${randomBytes(5).toString('hex')}`;
  const redis = createRedis(TEST_REDIS_URL);
  return {
    redis,
    keys: createRedisKeys(prefix),
    prefix,
    async cleanup() {
      let cursor = '0';
      do {
        const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
        if (found.length > 0) await redis.del(...found);
        cursor = next;
      } while (cursor !== '0');
      redis.disconnect();
    },
  };
}

/**
 * Counts the socket writes (syscalls) a Redis connection makes from now on: each of the handle's
 * write calls (one string, one buffer, or one vector of corked chunks) is one.
 */
export function countSocketWrites(redis: Redis): () => number {
  type WriteCall = (...args: unknown[]) => unknown;
  const handle = (redis.stream as unknown as { _handle: Record<'writev' | 'writeUtf8String' | 'writeBuffer', WriteCall> })._handle;
  let writes = 0;
  for (const name of ['writev', 'writeUtf8String', 'writeBuffer'] as const) {
    const original = handle[name].bind(handle);
    handle[name] = (...args: unknown[]) => {
      writes++;
      return original(...args);
    };
  }
  return () => writes;
}
