/**
 * Settlements of one turn of the event loop share one script call per shard (settle-batch-n.lua):
 * under load the requests a turn ends cost Redis one script run and the API one command and one
 * reply to parse, instead of one each. Each admission is still settled atomically with its usage
 * event, and answered on its own: one that fails in Redis fails alone; a call that fails (Redis
 * away) fails each of its admissions, as their own calls would have. A lone settlement waits only
 * for the turn's end (its write would wait for it anyway: see coalesceWrites in redis/connection.ts).
 */
import type Redis from 'ioredis';
import { loadRedisScript, runRedisScript, type RedisScript } from '../redis/redis-script';

/** Keys and arguments per admission, as settle-batch-n.lua expects them. */
const SETTLE_KEYS = 8;
const SETTLE_ARGS = 11;

export interface SettlementBatch {
  /** Settles one admission (its 8 keys and 11 arguments, all of `shard`); resolves with its own reply. */
  settle(shard: number, keys: string[], args: (string | number)[]): Promise<unknown[]>;
}

interface Waiting {
  keys: string[];
  args: (string | number)[];
  resolve: (reply: unknown[]) => void;
  reject: (error: unknown) => void;
}

/** One admission's share of the call's reply. */
function answer(waiting: Waiting, reply: unknown): void {
  if (!Array.isArray(reply)) waiting.reject(new Error('settlement: no reply for this admission'));
  else if (reply[0] === 'error') waiting.reject(new Error(`settlement failed in Redis: ${String(reply[1])}`));
  else waiting.resolve(reply);
}

function send(redis: Redis, script: RedisScript, batch: Waiting[]): void {
  const keys = batch.flatMap((waiting) => waiting.keys);
  const args = [batch.length, ...batch.flatMap((waiting) => waiting.args)];
  runRedisScript(redis, script, keys, args).then(
    (raw) => batch.forEach((waiting, i) => answer(waiting, Array.isArray(raw) ? raw[i] : undefined)),
    (error: unknown) => batch.forEach((waiting) => waiting.reject(error)),
  );
}

/** `maxBatch` bounds one call's size (and how long it holds Redis). */
export function createSettlementBatch(redis: Redis, maxBatch = 64): SettlementBatch {
  const script = loadRedisScript('settle-batch-n');
  let pending = new Map<number, Waiting[]>();

  const flush = () => {
    const groups = pending;
    pending = new Map();
    for (const group of groups.values()) {
      for (let start = 0; start < group.length; start += maxBatch) send(redis, script, group.slice(start, start + maxBatch));
    }
  };

  return {
    settle(shard, keys, args) {
      if (keys.length !== SETTLE_KEYS || args.length !== SETTLE_ARGS)
        throw new Error(`a settlement takes ${SETTLE_KEYS} keys and ${SETTLE_ARGS} arguments`);
      return new Promise((resolve, reject) => {
        if (pending.size === 0) setImmediate(flush);
        const group = pending.get(shard);
        const waiting = { keys, args, resolve, reject };
        if (group) group.push(waiting);
        else pending.set(shard, [waiting]);
      });
    },
  };
}
