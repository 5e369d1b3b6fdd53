import { createRedisKeys } from '../../../src/redis/keys';

const hashTag = (key: string) => /\{([^}]*)\}/.exec(key)?.[1];

describe('Redis key names', () => {
  const keys = createRedisKeys('pfx');

  it('prefixes every key', () => {
    const all = [keys.keyInvalidationChannel(), keys.taskChannel('task_1'), keys.account(1), keys.accountLeases(1), keys.apiKey(1, 2),
      keys.apiKeySpendWindow(1, 2), keys.upstreamCooldown(3), keys.bullPrefix()];
    for (const key of all) expect(key.startsWith('pfx:')).toBe(true);
    expect(new Set(all).size).toBe(all.length);
  });

  it('puts everything one admission touches in the same cluster slot', () => {
    const tags = [keys.account(7), keys.accountLeases(7), keys.apiKey(7, 99), keys.apiKeySpendWindow(7, 99)].map(hashTag);
    expect(new Set(tags)).toEqual(new Set(['a7']));
    expect(hashTag(keys.account(8))).not.toBe(hashTag(keys.account(7)));
  });
});
