/**
 * The settlements of one event-loop turn share one script call per shard (settle-batch-n.lua), on a
 * real Redis: each admission still gets its own reply, its own usage event and its own rider (a
 * request record for the shard's request-log stream), in order; one that fails in Redis fails alone;
 * settlements of different turns, or beyond the batch bound, go apart.
 */
import { admissionRedisKeys } from '../../../src/limits/admission-redis-keys';
import { createSettlementBatch } from '../../../src/limits/settlement-batch';
import { usageShard, USAGE_SHARDS } from '../../../src/redis/keys';
import { createTestRedis, type TestRedis } from '../../support/redis';

const NOW = 1_800_000_000_000;
const LIMITS = [0, 0, 0];

describe('settlement batch', () => {
  let t: TestRedis;
  beforeEach(async () => {
    t = await createTestRedis();
  });
  afterEach(async () => {
    jest.restoreAllMocks();
    await t.cleanup();
  });

  /** A settled admission of `accountId`'s key 1 whose counters exist (wallet 1,000, nothing spent). */
  async function admitted(accountId: number): Promise<string[]> {
    const keys = admissionRedisKeys(t.keys, accountId, 1);
    await t.redis.hset(keys[0]!, 'wallet', 1000);
    await t.redis.hset(keys[3]!, 'spent', 0);
    return [...keys, t.keys.accountUsageStream(accountId), t.keys.accountRequestLogStream(accountId)];
  }

  const args = (requestId: string, credits: number, event: string, rider = '') => [
    'settle',
    NOW,
    1,
    requestId,
    credits,
    60_000,
    ...LIMITS,
    event,
    rider,
  ];
  /** The usage entry id and the rider's entry id that end an admission's reply. */
  const entryIds = (reply: unknown[]) => reply.slice(-2);

  it('settles the admissions of one turn in one call per shard, each with its own reply and usage event', async () => {
    const batch = createSettlementBatch(t.redis);
    const sameShard = [3, 3 + USAGE_SHARDS, 3 + 2 * USAGE_SHARDS];
    const other = 4;
    const calls = jest.spyOn(t.redis, 'evalsha');
    const keys = await Promise.all([...sameShard, other].map((account) => admitted(account)));
    const replies = await Promise.all(
      keys.map((k, i) =>
        batch.settle(usageShard([...sameShard, other][i]!), k, args(`r${i}`, 10 * (i + 1), JSON.stringify({ requestId: `r${i}` }))),
      ),
    );
    expect(calls).toHaveBeenCalledTimes(2);
    for (const [i, reply] of replies.entries()) {
      expect(reply[0]).toBe('ok');
      expect(Number(reply[3])).toBe(1000 - 10 * (i + 1)); // its own wallet, charged its own cost
    }
    const entries = await t.redis.xrange(t.keys.usageStream(usageShard(3)), '-', '+');
    expect(entries.map(([id, fields]) => [id, fields[1]])).toEqual(
      [0, 1, 2].map((i) => [entryIds(replies[i]!)[0], JSON.stringify({ requestId: `r${i}` })]),
    );
    // No rider: nothing appended to the request-log stream.
    for (const reply of replies) expect(entryIds(reply)[1]).toBe('');
    expect(await t.redis.exists(t.keys.requestLogStream(usageShard(3)))).toBe(0);
    expect(await t.redis.xlen(t.keys.usageStream(usageShard(other)))).toBe(1);
  });

  it('fails only the admission that failed in Redis', async () => {
    const batch = createSettlementBatch(t.redis);
    const good = await admitted(5);
    const broken = await admitted(5 + USAGE_SHARDS);
    // A key hash that is not a hash: HEXISTS fails with WRONGTYPE inside the script.
    await t.redis.del(broken[3]!);
    await t.redis.set(broken[3]!, 'not a hash');
    const after = await admitted(5 + 2 * USAGE_SHARDS);
    const results = await Promise.allSettled([
      batch.settle(usageShard(5), good, args('ok-1', 7, 'e1')),
      batch.settle(usageShard(5), broken, args('broken', 7, '')),
      batch.settle(usageShard(5), after, args('ok-2', 7, 'e2')),
    ]);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/settlement failed in Redis: .*WRONGTYPE/);
    expect((await t.redis.xrange(t.keys.usageStream(usageShard(5)), '-', '+')).map(([, fields]) => fields[1])).toEqual(['e1', 'e2']);
  });

  it("appends each admission's rider to its shard's request-log stream in the same call, even when another admission fails", async () => {
    const batch = createSettlementBatch(t.redis);
    const calls = jest.spyOn(t.redis, 'evalsha');
    const first = await admitted(9);
    const broken = await admitted(9 + USAGE_SHARDS);
    await t.redis.del(broken[3]!);
    await t.redis.set(broken[3]!, 'not a hash');
    const last = await admitted(9 + 2 * USAGE_SHARDS);
    const record = (id: string) => JSON.stringify([{ requestId: id }]);
    const results = await Promise.allSettled([
      batch.settle(usageShard(9), first, args('rider-1', 5, 'u1', record('rider-1'))),
      batch.settle(usageShard(9), broken, args('rider-broken', 5, '', '')),
      batch.settle(usageShard(9), last, args('rider-2', 5, 'u2', record('rider-2'))),
    ]);
    expect(calls).toHaveBeenCalledTimes(1);
    expect(results.map((result) => result.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    const stream = t.keys.requestLogStream(usageShard(9));
    expect(stream).toContain(`{s${usageShard(9)}}`);
    const entries = await t.redis.xrange(stream, '-', '+');
    const replies = [results[0], results[2]].map((result) => (result as PromiseFulfilledResult<unknown[]>).value);
    expect(entries).toEqual([
      [entryIds(replies[0]!)[1], ['b', record('rider-1')]],
      [entryIds(replies[1]!)[1], ['b', record('rider-2')]],
    ]);
    // The usage events went to their own stream, as without a rider.
    expect((await t.redis.xrange(t.keys.usageStream(usageShard(9)), '-', '+')).map(([, fields]) => fields[1])).toEqual(['u1', 'u2']);
  });

  it('sends settlements of different turns apart, and splits a turn beyond the batch bound', async () => {
    const batch = createSettlementBatch(t.redis, 2);
    const calls = jest.spyOn(t.redis, 'evalsha');
    const keys = await Promise.all([6, 6 + USAGE_SHARDS, 6 + 2 * USAGE_SHARDS].map((account) => admitted(account)));
    await Promise.all(keys.map((k, i) => batch.settle(usageShard(6), k, args(`q${i}`, 1, ''))));
    expect(calls).toHaveBeenCalledTimes(2);
    const lone = await admitted(7);
    await batch.settle(usageShard(7), lone, args('lone', 1, ''));
    expect(calls).toHaveBeenCalledTimes(3);
  });

  it('refuses a settlement with the wrong number of keys or arguments', () => {
    const batch = createSettlementBatch(t.redis);
    expect(() => batch.settle(0, ['a'], args('x', 1, ''))).toThrow(/8 keys and 11 arguments/);
  });
});
