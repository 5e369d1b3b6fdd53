import { ALL_USAGE_SHARDS, USAGE_SHARDS, byUsageShard, createRedisKeys, sameHashTag, usageShard } from '../../../src/redis/keys';

const hashTag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];

describe('Redis key names', () => {
  const keys = createRedisKeys('pfx');

  it('prefixes every key', () => {
    const all = [
      keys.keyInvalidationChannel(),
      keys.taskChannel('task_1'),
      keys.account(1),
      keys.accountLeases(1),
      keys.apiKey(1, 2),
      keys.apiKeySpendWindow(1, 2),
      keys.upstreamCooldown(3),
      keys.bullPrefix(),
      keys.usageStream(0),
      keys.usageDeadLetters(0),
    ];
    for (const key of all) expect(key.startsWith('pfx:')).toBe(true);
    expect(new Set(all).size).toBe(all.length);
  });

  it('puts everything one admission touches in the same cluster slot', () => {
    const tags = [
      keys.account(7),
      keys.accountLeases(7),
      keys.apiKey(7, 99),
      keys.apiKeySpendWindow(7, 99),
      keys.apiKeySpendIndex(7, 99),
      keys.accountReservations(7),
    ].map(hashTag);
    expect(new Set(tags).size).toBe(1);
    expect(hashTag(keys.account(8))).not.toBe(hashTag(keys.account(7)));
  });

  // Settlement changes the account's counters and appends its usage event in one script: on a
  // cluster every key of a script must hash to one slot (else CROSSSLOT).
  it("settlement_keys_share_a_slot: the account usage stream carries the account keys' tag", () => {
    for (const accountId of [1, 7, 16, 17, 123_456, 'org-9']) {
      const tag = hashTag(keys.account(accountId));
      expect(hashTag(keys.accountUsageStream(accountId))).toBe(tag);
      expect(hashTag(keys.usageDeadLetters(usageShard(accountId)))).toBe(tag);
      // A whole answer's request record rides in the settlement: its stream is of the same slot.
      expect(hashTag(keys.accountRequestLogStream(accountId))).toBe(tag);
      expect(sameHashTag(keys.accountRequestLogStream(accountId), keys.accountUsageStream(accountId))).toBe(true);
    }
    expect(sameHashTag(keys.accountRequestLogStream(1), keys.accountUsageStream(2))).toBe(false);
    expect(sameHashTag(keys.legacyRequestLogStream(), keys.legacyRequestLogStream())).toBe(false); // no tag
    expect(new Set(ALL_USAGE_SHARDS.map((shard) => keys.requestLogStream(shard))).size).toBe(USAGE_SHARDS);
  });

  it('spreads accounts over a fixed number of shards, each account on one', () => {
    const shards = new Set(Array.from({ length: 1_000 }, (_unused, id) => usageShard(id + 1)));
    expect(shards).toEqual(new Set(ALL_USAGE_SHARDS));
    expect(usageShard(42)).toBe(usageShard('42'));
    expect(ALL_USAGE_SHARDS).toHaveLength(USAGE_SHARDS);
    const streams = new Set(ALL_USAGE_SHARDS.map((shard) => hashTag(keys.usageStream(shard))));
    expect(streams.size).toBe(USAGE_SHARDS);
    const groups = byUsageShard([{ a: 1 }, { a: 1 + USAGE_SHARDS }, { a: 2 }], (item) => item.a);
    expect([...groups.values()].map((group) => group.length).sort()).toEqual([1, 2]);
  });

  it('bullmq_prefix_is_hash_tagged: every BullMQ key of a queue lands in one slot', () => {
    expect(hashTag(`${keys.bullPrefix()}:tasks:wait`)).toBe(hashTag(`${keys.bullPrefix()}:tasks:meta`));
    expect(hashTag(keys.bullPrefix())).toBeDefined();
  });
});
