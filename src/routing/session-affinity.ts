/**
 * Session affinity: the upstream account a conversation last ran on, shared by every API process
 * (Redis), kept for a sliding TTL that follows the providers' prompt-cache life (5 minutes by
 * default: `SESSION_AFFINITY_TTL_SECONDS`; 0 turns affinity off). Providers cache prompts per
 * account, so a conversation that stays on one account pays the cache-read price for what it repeats.
 */
import type Redis from 'ioredis';
import type { RedisKeys } from '../redis/keys';

export interface SessionAffinity {
  readonly enabled: boolean;
  /** The account the session is bound to, if any (and affinity is on); the read restarts the binding's TTL. */
  boundAccount(groupId: number, sessionId: string): Promise<number | undefined>;
  /** Binds the session to the account that served it, restarting its TTL (needed only when it moved). */
  bind(groupId: number, sessionId: string, accountId: number): Promise<void>;
}

export function createSessionAffinity(options: { redis: Redis; redisKeys: RedisKeys; ttlMs: number }): SessionAffinity {
  const { redis, redisKeys, ttlMs } = options;
  const enabled = ttlMs > 0;
  return {
    enabled,
    async boundAccount(groupId, sessionId) {
      if (!enabled) return undefined;
      // GETEX: the read keeps the binding alive, so a session that stays put costs one round trip.
      const value = await redis.getex(redisKeys.sessionAffinity(groupId, sessionId), 'PX', ttlMs);
      return value === null ? undefined : Number(value);
    },
    async bind(groupId, sessionId, accountId) {
      if (!enabled) return;
      await redis.set(redisKeys.sessionAffinity(groupId, sessionId), String(accountId), 'PX', ttlMs);
    },
  };
}
