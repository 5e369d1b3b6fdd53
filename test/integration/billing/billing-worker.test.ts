/**
 * Settlement on real Redis and PostgreSQL with the worker in this process: exactness, batching,
 * replays, poison events, and a Redis that loses its usage stream, entries or consumer group.
 */
import { createUsageRecorder, type UsageRecorderHandle } from '../../../src/billing/create-usage-recorder';
import { settleUsageEvents } from '../../../src/billing/settle-usage-events';
import type { UsageEvent } from '../../../src/billing/usage-event';
import { ALL_USAGE_SHARDS, USAGE_SHARDS, usageShard } from '../../../src/redis/keys';
import { BILLING_GROUP, startBillingWorker, type BillingWorker } from '../../../workers/billing-worker';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import {
  createBillingFixture,
  creditsByKey,
  deleteKeysWithPrefix,
  eventually,
  readTotals,
  sumCredits,
  usageEvent,
  type BillingFixture,
} from './billing-fixtures';

describe('billing worker (in process)', () => {
  let deps: TestDependencies;
  let recorder: UsageRecorderHandle;
  let worker: BillingWorker | undefined;

  beforeAll(async () => {
    deps = await createTestDependencies();
    recorder = createUsageRecorder(deps, { confirmAfterMs: 300, sweepIntervalMs: 100 });
  });
  afterAll(async () => {
    await worker?.close();
    await recorder.close();
    await deps.close();
  });

  /** The usage stream of the fixture's account shard. */
  const stream = (fixture: { accountId: number }) => deps.redisKeys.accountUsageStream(fixture.accountId);
  /** The request ids of a stream's entries. */
  const requestIdsIn = async (key: string) =>
    (await deps.redis.xrange(key, '-', '+')).map(
      ([, fields]) => (JSON.parse(fields[fields.indexOf('e') + 1] ?? '{}') as { requestId?: string }).requestId,
    );
  const startWorker = async () => {
    worker = await startBillingWorker(deps, { concurrency: 25, lingerMs: 20, lockDurationMs: 5_000 });
  };
  const stopWorker = async () => {
    await worker?.close();
    worker = undefined;
  };

  const expectExact = async (fixture: BillingFixture, events: UsageEvent[]) => {
    const totals = await readTotals(deps.db, fixture.accountId);
    expect(totals.rows).toBe(events.length);
    expect(totals.rowCredits).toBe(sumCredits(events));
    expect(fixture.startingBalance - totals.balance).toBe(sumCredits(events));
    expect(totals.ledgerSum).toBe(totals.balance);
    expect(totals.charges).toBe(events.filter((event) => event.credits > 0).length);
    expect(-totals.chargeSum).toBe(sumCredits(events));
    for (const [keyId, credits] of creditsByKey(events)) expect(totals.keySpent.get(keyId)).toBe(credits);
  };

  it('writes every event once, in batches: rows = wallet drop = sum of events', async () => {
    await startWorker();
    const fixture = await createBillingFixture(deps.db, deps.crypto, { keys: 3 });
    const events = Array.from({ length: 400 }, () => usageEvent(fixture));
    await Promise.all(events.map((event) => recorder.record(event)));
    expect(await recorder.drain(30_000)).toBe(true);
    await expectExact(fixture, events);
    // Rows written by one transaction share its start time (now()): fewer distinct times than rows
    // shows the events were settled together, not one transaction each.
    const transactions = await deps.db.query<{ n: number }>(
      'SELECT count(DISTINCT created_at)::int AS n FROM usage_rows WHERE account_id = $1',
      [fixture.accountId],
    );
    expect(transactions.rows[0]?.n).toBeLessThan(events.length / 2);
    // Every charge row records the balance after it: replaying them in order ends at the wallet.
    const ledger = await deps.db.query<{ amount_credits: number; balance_after: number }>(
      'SELECT amount_credits, balance_after FROM ledger_entries WHERE account_id = $1 ORDER BY id',
      [fixture.accountId],
    );
    let running = 0;
    for (const row of ledger.rows) {
      running += row.amount_credits;
      expect(row.balance_after).toBe(running);
    }
  });

  it('writes nothing for a replayed event, however often it is appended', async () => {
    const fixture = await createBillingFixture(deps.db, deps.crypto);
    const event = usageEvent(fixture);
    await recorder.record(event);
    await recorder.record(event);
    expect(await recorder.drain()).toBe(true);
    // The same event appended again (e.g. a recorder that took it for lost): a no-op.
    const replay = await deps.redis.xadd(stream(fixture), '*', 'e', JSON.stringify(event));
    await eventually(
      'replay to be consumed',
      () => deps.redis.xrange(stream(fixture), replay!, replay!),
      (entries) => entries.length === 0,
    );
    await expectExact(fixture, [event]);
    // And directly: the second settlement reports the row as not written.
    expect(await settleUsageEvents(deps.db, [event, event])).toEqual([
      { requestId: event.requestId, written: false },
      { requestId: event.requestId, written: false },
    ]);
    await expectExact(fixture, [event]);
  });

  it('fails a poison event for good without holding back the rest of its batch', async () => {
    const fixture = await createBillingFixture(deps.db, deps.crypto);
    const good = Array.from({ length: 10 }, () => usageEvent(fixture));
    // An account that does not exist, on another shard than the fixture's (987,648 is a multiple of 16).
    const orphan = usageEvent({ accountId: 987_648 + ((usageShard(fixture.accountId) + 1) % USAGE_SHARDS), keyIds: [] });
    const malformed = { ...usageEvent(fixture), credits: -5 };
    await Promise.all([...good, orphan, malformed].map((event) => recorder.record(event)));
    await eventually(
      'good events written',
      () => readTotals(deps.db, fixture.accountId),
      (totals) => totals.rows === good.length,
    );
    // Both set aside at once in the dead-letter stream, not retried for ever; the stream is empty.
    // The orphan's account and the fixture's are on different shards: each shard has its dead letters.
    expect(usageShard(orphan.accountId)).not.toBe(usageShard(fixture.accountId));
    const deadLetters = async () =>
      (await Promise.all(ALL_USAGE_SHARDS.map((shard) => requestIdsIn(deps.redisKeys.usageDeadLetters(shard))))).flat();
    await eventually('bad events dead-lettered', deadLetters, (ids) => ids.includes(orphan.requestId) && ids.includes(malformed.requestId));
    await eventually(
      'usage streams emptied',
      () => Promise.all([fixture, orphan].map((owner) => deps.redis.xlen(stream(owner)))),
      (lengths) => lengths.every((length) => length === 0),
    );
    await expectExact(fixture, good);
  });

  it('appends again an entry Redis lost, and creates the consumer group again when Redis lost it', async () => {
    await stopWorker();
    const fixture = await createBillingFixture(deps.db, deps.crypto);
    const [lost, kept] = [usageEvent(fixture), usageEvent(fixture)];
    await Promise.all([recorder.record(lost), recorder.record(kept)]);
    expect(await recorder.flush()).toBe(true);
    const entries = await deps.redis.xrange(stream(fixture), '-', '+');
    const lostEntry = entries.find(([, fields]) => fields.includes(JSON.stringify(lost)));
    expect(await deps.redis.xdel(stream(fixture), lostEntry![0])).toBe(1);
    await startWorker();
    // The group vanishes under a running worker (NOGROUP): it is created again.
    expect(await deps.redis.xgroup('DESTROY', stream(fixture), BILLING_GROUP)).toBe(1);
    const later = Array.from({ length: 5 }, () => usageEvent(fixture));
    await Promise.all(later.map((event) => recorder.record(event)));
    expect(await recorder.drain(30_000)).toBe(true);
    await expectExact(fixture, [lost, kept, ...later]);
  });

  it('loses nothing when Redis loses the usage stream: the API copy is appended again', async () => {
    await stopWorker();
    const fixture = await createBillingFixture(deps.db, deps.crypto);
    const events = Array.from({ length: 60 }, () => usageEvent(fixture));
    await Promise.all(events.map((event) => recorder.record(event)));
    expect(await recorder.flush()).toBe(true);
    expect(await requestIdsIn(stream(fixture))).toEqual(expect.arrayContaining([events[0]!.requestId]));
    // The flush: every key of this test's prefix (the shared test Redis serves other tests too).
    await deleteKeysWithPrefix(deps.redis, deps.redisKeys.prefix);
    expect(await deps.redis.exists(stream(fixture))).toBe(0);
    await startWorker();
    expect(recorder.stats().pending).toBeGreaterThanOrEqual(events.length);
    expect(await recorder.drain(30_000)).toBe(true);
    await expectExact(fixture, events);
  });
});
