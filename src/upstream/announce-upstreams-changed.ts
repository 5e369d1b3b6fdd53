/**
 * Tells every process that upstream accounts or routing groups changed (after the change is
 * committed): each reloads its upstream list (upstream-directory.ts). Best effort: a process that
 * misses it still reloads within its refresh period, and a request that finds no account looks again.
 */
import type Redis from 'ioredis';
import type { RedisKeys } from '../redis/keys';

export async function announceUpstreamsChanged(redis: Redis, redisKeys: RedisKeys): Promise<boolean> {
  try {
    await redis.publish(redisKeys.upstreamsChangedChannel(), 'changed');
    return true;
  } catch {
    return false;
  }
}
