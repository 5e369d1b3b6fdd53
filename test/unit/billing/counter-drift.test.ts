import {
  compareCounters,
  expectedCounters,
  sameDrift,
  type CounterSnapshot,
  type UnsettledCharge,
} from '../../../src/billing/counter-drift';

const NOW = Date.UTC(2026, 2, 1, 12, 0, 0);
const MINUTE = 60_000;
const minute = (ms: number) => Math.floor(ms / MINUTE);

const ledger = {
  balance: 1_000_000,
  keys: new Map([
    [
      1,
      {
        spent: 5_000,
        buckets: new Map([
          [minute(NOW - 10 * MINUTE), 300],
          [minute(NOW - 3 * 24 * 60 * MINUTE), 200],
        ]),
      },
    ],
    [2, { spent: 0, buckets: new Map<number, number>() }],
  ]),
};
const charge = (credits: number, apiKeyId: number | null, startedAt = NOW - MINUTE): UnsettledCharge => ({
  requestId: `r${credits}`,
  accountId: 9,
  apiKeyId,
  credits,
  startedAt,
});

describe('expectedCounters', () => {
  it('adds the unsettled charges to what PostgreSQL says', () => {
    const expected = expectedCounters(ledger, [charge(40, 1), charge(7, 2), charge(3, null), charge(11, 99)]);
    expect(expected.wallet).toBe(1_000_000 - 40 - 7 - 3 - 11);
    expect(expected.keys.get(1)?.spent).toBe(5_040);
    expect(expected.keys.get(1)?.buckets.get(minute(NOW - MINUTE))).toBe(40);
    expect(expected.keys.get(2)?.spent).toBe(7);
    // The ledger's own figures are left untouched.
    expect(ledger.keys.get(1)?.spent).toBe(5_000);
    expect(ledger.keys.get(1)?.buckets.has(minute(NOW - MINUTE))).toBe(false);
  });
});

describe('compareCounters', () => {
  const matching = (): CounterSnapshot => ({
    wallet: 1_000_000 - 40,
    keys: new Map([
      [
        1,
        {
          spent: 5_040,
          buckets: new Map([
            [minute(NOW - 10 * MINUTE), 300],
            [minute(NOW - 3 * 24 * 60 * MINUTE), 200],
            [minute(NOW), 40],
          ]),
        },
      ],
      [2, { spent: 0, buckets: new Map() }],
    ]),
  });
  const expected = () => expectedCounters(ledger, [charge(40, 1)]);

  it('finds nothing when Redis holds the ledger plus the unsettled charges (a charge filed a minute later included)', () => {
    const drift = compareCounters(matching(), expected(), NOW);
    expect(drift).toEqual({ missing: false, wallet: 0, keySpent: new Map(), keyWindow: new Map(), total: 0 });
  });

  it('measures each counter that drifted, signed Redis minus expected', () => {
    const snapshot = matching();
    const key1 = snapshot.keys.get(1)!;
    const drifted: CounterSnapshot = {
      wallet: 1_000_000,
      keys: new Map([
        [1, { spent: 5_000, buckets: new Map([...key1.buckets].filter(([m]) => m !== minute(NOW))) }],
        [2, { spent: 9, buckets: new Map([[minute(NOW), 9]]) }],
      ]),
    };
    const drift = compareCounters(drifted, expected(), NOW);
    expect(drift.wallet).toBe(40);
    expect(drift.keySpent).toEqual(
      new Map([
        [1, -40],
        [2, 9],
      ]),
    );
    expect(drift.keyWindow).toEqual(
      new Map([
        [1, -40],
        [2, 9],
      ]),
    );
    expect(drift.total).toBe(40 + 40 + 9 + 40 + 9);
  });

  it('leaves the oldest hour of the 7-day window out: minute filing differs there', () => {
    const snapshot = matching();
    const old = minute(NOW) - 7 * 24 * 60 + 30;
    snapshot.keys.get(2)!.buckets = new Map([[old, 500]]);
    expect(compareCounters(snapshot, expected(), NOW).keyWindow.size).toBe(0);
    snapshot.keys.get(2)!.buckets = new Map([[old + 60, 500]]);
    expect(compareCounters(snapshot, expected(), NOW).keyWindow).toEqual(new Map([[2, 500]]));
  });

  it('reports missing counters without inventing drift for them', () => {
    const snapshot: CounterSnapshot = { wallet: null, keys: new Map([[1, { spent: null, buckets: new Map() }]]) };
    const drift = compareCounters(snapshot, expected(), NOW);
    expect(drift).toMatchObject({ missing: true, wallet: 0, total: 0 });
    const full = matching();
    const keyOnly: CounterSnapshot = { wallet: full.wallet, keys: new Map([...full.keys].filter(([keyId]) => keyId !== 2)) };
    expect(compareCounters(keyOnly, expected(), NOW).missing).toBe(true);
  });
});

describe('sameDrift', () => {
  it('is true only for identical measurements', () => {
    const base = { missing: false, wallet: 5, keySpent: new Map([[1, 5]]), keyWindow: new Map<number, number>(), total: 10 };
    expect(sameDrift(base, { ...base, keySpent: new Map([[1, 5]]) })).toBe(true);
    expect(sameDrift(base, { ...base, wallet: 6 })).toBe(false);
    expect(sameDrift(base, { ...base, keySpent: new Map([[1, 4]]) })).toBe(false);
    expect(
      sameDrift(base, {
        ...base,
        keySpent: new Map([
          [1, 5],
          [2, 1],
        ]),
      }),
    ).toBe(false);
    expect(sameDrift(base, { ...base, missing: true })).toBe(false);
  });
});
