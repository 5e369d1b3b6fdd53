/**
 * Tells every process that upstream accounts or routing groups changed (after the change is
 * committed): each reloads its upstream list (upstream-directory.ts). Best effort: a process that
 * misses it still reloads within its refresh period, and a request that finds no account looks again.
 */
import type Redis from 'ioredis';
import type { RedisKeys } from '../redis/keys';

const ANNOUNCE_TIMEOUT_MS = 2_000;

export async function announceUpstreamsChanged(redis: Redis, redisKeys: RedisKeys): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  try {
    // Redis away must not hold the change up: the periodic refresh will carry it.
    await Promise.race([
      redis.publish(redisKeys.upstreamsChangedChannel(), 'changed'),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer')), ANNOUNCE_TIMEOUT_MS);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
