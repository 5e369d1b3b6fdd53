/**
 * What the Redis counters of one account should hold, and how far they are from it (pure; the
 * reconciler does the reading). Redis holds every settled charge at once; PostgreSQL holds those
 * the billing worker has written. So expected = PostgreSQL + the unsettled charges (usage events not
 * yet written): wallet = balance − unsettled, key lifetime spend = spent + unsettled, and the key's
 * spend buckets (minute → credits) = usage rows by the minute they started + unsettled.
 */

export interface KeyCounters {
  /** Lifetime spend, credits; null when Redis has no counters for the key. */
  spent: number | null;
  /** Minute (Unix minutes) → credits. */
  buckets: ReadonlyMap<number, number>;
}

export interface CounterSnapshot {
  /** Cached wallet, credits; null when Redis has no wallet cache for the account. */
  wallet: number | null;
  keys: ReadonlyMap<number, KeyCounters>;
}

export interface UnsettledCharge {
  requestId: string;
  accountId: number;
  apiKeyId: number | null;
  credits: number;
  /** Unix ms the request started (its spend-window minute). */
  startedAt: number;
}

export interface ExpectedCounters {
  wallet: number;
  keys: Map<number, { spent: number; buckets: Map<number, number> }>;
}

export interface CounterDrift {
  /** Some counter of the account is not in Redis (never loaded, expired, or flushed). */
  missing: boolean;
  /** Redis − expected, credits (0 when that counter is missing). */
  wallet: number;
  keySpent: Map<number, number>;
  /** Redis − expected over the comparable part of the 7-day window. */
  keyWindow: Map<number, number>;
  /** Sum of the absolute drifts. */
  total: number;
}

export const LONGEST_WINDOW_MINUTES = 7 * 24 * 60;
/**
 * Redis files a charge under the minute it settled, PostgreSQL under the minute it started: they
 * differ for requests crossing a minute. Sums over a range agree except at its old edge, so the
 * oldest hour of the 7-day window is left out of the comparison (streams last less than that).
 */
export const WINDOW_EDGE_MINUTES = 60;

/** PostgreSQL's figures plus the unsettled charges: what Redis should say. */
export function expectedCounters(
  ledger: { balance: number; keys: ReadonlyMap<number, { spent: number; buckets: ReadonlyMap<number, number> }> },
  unsettled: readonly UnsettledCharge[],
): ExpectedCounters {
  const keys = new Map<number, { spent: number; buckets: Map<number, number> }>();
  for (const [keyId, key] of ledger.keys) keys.set(keyId, { spent: key.spent, buckets: new Map(key.buckets) });
  let wallet = ledger.balance;
  for (const charge of unsettled) {
    wallet -= charge.credits;
    if (charge.apiKeyId === null) continue;
    const key = keys.get(charge.apiKeyId);
    // A charge of a deleted key still moves the wallet; it has no key counters to move.
    if (!key) continue;
    key.spent += charge.credits;
    const minute = Math.floor(charge.startedAt / 60_000);
    key.buckets.set(minute, (key.buckets.get(minute) ?? 0) + charge.credits);
  }
  return { wallet, keys };
}

function windowSum(buckets: ReadonlyMap<number, number>, fromMinute: number, toMinute: number): number {
  let sum = 0;
  for (const [minute, credits] of buckets) if (minute >= fromMinute && minute <= toMinute) sum += credits;
  return sum;
}

export function compareCounters(actual: CounterSnapshot, expected: ExpectedCounters, nowMs: number): CounterDrift {
  const nowMinute = Math.floor(nowMs / 60_000);
  const fromMinute = nowMinute - LONGEST_WINDOW_MINUTES + 1 + WINDOW_EDGE_MINUTES;
  let missing = actual.wallet === null;
  const wallet = actual.wallet === null ? 0 : actual.wallet - expected.wallet;
  const keySpent = new Map<number, number>();
  const keyWindow = new Map<number, number>();
  let total = Math.abs(wallet);
  for (const [keyId, want] of expected.keys) {
    const have = actual.keys.get(keyId);
    if (!have || have.spent === null) {
      missing = true;
      continue;
    }
    const spentDrift = have.spent - want.spent;
    // Later buckets than now (a clock ahead) still count: they hold real charges.
    const windowDrift =
      windowSum(have.buckets, fromMinute, Number.POSITIVE_INFINITY) - windowSum(want.buckets, fromMinute, Number.POSITIVE_INFINITY);
    if (spentDrift !== 0) keySpent.set(keyId, spentDrift);
    if (windowDrift !== 0) keyWindow.set(keyId, windowDrift);
    total += Math.abs(spentDrift) + Math.abs(windowDrift);
  }
  return { missing, wallet, keySpent, keyWindow, total };
}

/** Two measurements agree exactly: the drift is standing, not a charge caught in flight. */
export function sameDrift(a: CounterDrift, b: CounterDrift): boolean {
  const sameMap = (x: Map<number, number>, y: Map<number, number>) => x.size === y.size && [...x].every(([k, v]) => y.get(k) === v);
  return a.missing === b.missing && a.wallet === b.wallet && sameMap(a.keySpent, b.keySpent) && sameMap(a.keyWindow, b.keyWindow);
}
