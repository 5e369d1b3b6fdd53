/**
 * Idempotency records in Redis, shared by every API process: one string per (API key, header
 * value), claimed atomically with SET NX, so of any number of simultaneous identical requests
 * exactly one does the work. A claim holds `running` until its answer is kept (`done`) or its
 * failure drops it (failures are free, so a retry may do the work again).
 */
import { createHash, randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import { z } from 'zod';
import type { Clock } from '../dependencies';
import { loadRedisScript, runRedisScript } from '../redis/redis-script';
import type { RedisKeys } from '../redis/keys';

/** How long a claim may stay `running` before it is presumed dead (its process crashed). */
const MAX_RUNNING_MS = 10 * 60_000;

const FINISH = loadRedisScript('idempotency-finish-1');

const recordSchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('running'), fingerprint: z.string(), owner: z.string(), startedAt: z.number() }),
  z.object({
    state: z.literal('done'),
    fingerprint: z.string(),
    owner: z.string(),
    startedAt: z.number(),
    status: z.number(),
    body: z.unknown(),
  }),
]);

export type IdempotencyRecord = z.infer<typeof recordSchema>;

export interface StoredAnswer {
  status: number;
  body: unknown;
}

export type Claim = { claimed: true; owner: string; startedAt: number } | { claimed: false; record: IdempotencyRecord };

export interface IdempotencyStore {
  claim(keyId: number, idempotencyKey: string, fingerprint: string): Promise<Claim>;
  read(keyId: number, idempotencyKey: string): Promise<IdempotencyRecord | undefined>;
  /** Keeps the answer until the window that began with the claim ends. */
  complete(
    keyId: number,
    idempotencyKey: string,
    claim: { owner: string; startedAt: number; fingerprint: string },
    answer: StoredAnswer,
  ): Promise<void>;
  release(keyId: number, idempotencyKey: string, owner: string): Promise<void>;
}

export function createIdempotencyStore(options: { redis: Redis; redisKeys: RedisKeys; clock: Clock; ttlMs: number }): IdempotencyStore {
  const { redis, redisKeys, clock, ttlMs } = options;
  const keyOf = (keyId: number, idempotencyKey: string) =>
    redisKeys.idempotency(keyId, createHash('sha256').update(idempotencyKey).digest('hex'));

  async function read(keyId: number, idempotencyKey: string): Promise<IdempotencyRecord | undefined> {
    const raw = await redis.get(keyOf(keyId, idempotencyKey));
    if (raw === null) return undefined;
    const parsed = recordSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  }

  return {
    read,
    async claim(keyId, idempotencyKey, fingerprint) {
      // A record can expire between SET NX failing and GET: try again once.
      for (let attempt = 0; attempt < 2; attempt++) {
        const owner = randomUUID();
        const startedAt = clock.now();
        const running: IdempotencyRecord = { state: 'running', fingerprint, owner, startedAt };
        const set = await redis.set(keyOf(keyId, idempotencyKey), JSON.stringify(running), 'PX', Math.min(ttlMs, MAX_RUNNING_MS), 'NX');
        if (set === 'OK') return { claimed: true, owner, startedAt };
        const record = await read(keyId, idempotencyKey);
        if (record) return { claimed: false, record };
      }
      throw new Error('idempotency record vanished twice while being claimed');
    },
    async complete(keyId, idempotencyKey, claim, answer) {
      const done: IdempotencyRecord = {
        state: 'done',
        fingerprint: claim.fingerprint,
        owner: claim.owner,
        startedAt: claim.startedAt,
        ...answer,
      };
      const remainingMs = Math.max(1, claim.startedAt + ttlMs - clock.now());
      await runRedisScript(redis, FINISH, [keyOf(keyId, idempotencyKey)], [claim.owner, JSON.stringify(done), remainingMs]);
    },
    async release(keyId, idempotencyKey, owner) {
      await runRedisScript(redis, FINISH, [keyOf(keyId, idempotencyKey)], [owner, '', 0]);
    },
  };
}
