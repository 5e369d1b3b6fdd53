/**
 * Settlement on real Redis and PostgreSQL with the worker in this process: exactness, batching,
 * replays, poison events, and a Redis that loses its queued jobs.
 */
import { Queue } from 'bullmq';
import { BILLING_QUEUE_NAME, USAGE_JOB_NAME } from '../../../src/billing/billing-queue';
import { createUsageRecorder, type UsageRecorderHandle } from '../../../src/billing/create-usage-recorder';
import { settleUsageEvents } from '../../../src/billing/settle-usage-events';
import type { UsageEvent } from '../../../src/billing/usage-event';
import { createRedis } from '../../../src/redis/connection';
import { startBillingWorker, type BillingWorker } from '../../../workers/billing-worker';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { createBillingFixture, creditsByKey, deleteKeysWithPrefix, eventually, readTotals, sumCredits, usageEvent, type BillingFixture } from './billing-fixtures';

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
    const transactions = await deps.db.query<{ n: number }>('SELECT count(DISTINCT created_at)::int AS n FROM usage_rows WHERE account_id = $1', [fixture.accountId]);
    expect(transactions.rows[0]?.n).toBeLessThan(events.length / 2);
    // Every charge row records the balance after it: replaying them in order ends at the wallet.
    const ledger = await deps.db.query<{ amount_credits: number; balance_after: number }>(
      'SELECT amount_credits, balance_after FROM ledger_entries WHERE account_id = $1 ORDER BY id', [fixture.accountId]);
    let running = 0;
    for (const row of ledger.rows) {
      running += row.amount_credits;
      expect(row.balance_after).toBe(running);
    }
  });

  it('writes nothing for a replayed event, whatever the job id', async () => {
    const fixture = await createBillingFixture(deps.db, deps.crypto);
    const event = usageEvent(fixture);
    await recorder.record(event);
    await recorder.record(event);
    expect(await recorder.drain()).toBe(true);
    // The same request id under another job id (e.g. its first job was removed): a no-op.
    const connection = createRedis(deps.config.redisUrl, { forBullmq: true });
    const queue = new Queue(BILLING_QUEUE_NAME, { connection, prefix: deps.redisKeys.bullPrefix() });
    const replay = await queue.add(USAGE_JOB_NAME, event, { jobId: `${event.requestId}-replay` });
    await eventually('replay to finish', async () => (await queue.getJob(String(replay.id)))?.returnvalue, (value) => value === 'duplicate');
    await queue.close();
    connection.disconnect();
    await expectExact(fixture, [event]);
    // And directly: the second settlement reports the row as not written.
    expect(await settleUsageEvents(deps.db, [event, event])).toEqual([
      { requestId: event.requestId, written: false }, { requestId: event.requestId, written: false }]);
    await expectExact(fixture, [event]);
  });

  it('fails a poison event for good without holding back the rest of its batch', async () => {
    const fixture = await createBillingFixture(deps.db, deps.crypto);
    const good = Array.from({ length: 10 }, () => usageEvent(fixture));
    const orphan = usageEvent({ accountId: 987_654, keyIds: [] });
    const malformed = { ...usageEvent(fixture), credits: -5 };
    await Promise.all([...good, orphan, malformed].map((event) => recorder.record(event)));
    await eventually('good events written', () => readTotals(deps.db, fixture.accountId), (totals) => totals.rows === good.length);
    const connection = createRedis(deps.config.redisUrl, { forBullmq: true });
    const queue = new Queue(BILLING_QUEUE_NAME, { connection, prefix: deps.redisKeys.bullPrefix() });
    for (const bad of [orphan, malformed]) {
      await eventually(`${bad.requestId} failed`, () => queue.getJobState(bad.requestId), (state) => state === 'failed');
      const job = await queue.getJob(bad.requestId);
      // Failed at once (unrecoverable), not after twelve backed-off attempts.
      expect(job?.attemptsMade).toBe(1);
    }
    expect((await queue.getJob(malformed.requestId))?.failedReason).toMatch(/credits/);
    await queue.close();
    connection.disconnect();
    await expectExact(fixture, good);
  });

  it('enqueues again a job Redis lost only part of (its payload, or its place in the queue)', async () => {
    await stopWorker();
    const fixture = await createBillingFixture(deps.db, deps.crypto);
    const [payloadLost, unlisted] = [usageEvent(fixture), usageEvent(fixture)];
    await Promise.all([recorder.record(payloadLost), recorder.record(unlisted)]);
    expect(await recorder.flush()).toBe(true);
    const bull = `${deps.redisKeys.bullPrefix()}:${BILLING_QUEUE_NAME}`;
    // The job's hash is gone but its id still waits: the worker finds no payload and fails it.
    expect(await deps.redis.del(`${bull}:${payloadLost.requestId}`)).toBe(1);
    // The job's hash is there but it waits nowhere: its id blocks a plain re-enqueue.
    expect(await deps.redis.lrem(`${bull}:wait`, 0, unlisted.requestId)).toBe(1);
    await startWorker();
    expect(await recorder.drain(30_000)).toBe(true);
    await expectExact(fixture, [payloadLost, unlisted]);
  });

  it('loses nothing when Redis loses the queued jobs: the API copy is enqueued again', async () => {
    await stopWorker();
    const fixture = await createBillingFixture(deps.db, deps.crypto);
    const events = Array.from({ length: 60 }, () => usageEvent(fixture));
    await Promise.all(events.map((event) => recorder.record(event)));
    expect(await recorder.flush()).toBe(true);
    const connection = createRedis(deps.config.redisUrl, { forBullmq: true });
    const queue = new Queue(BILLING_QUEUE_NAME, { connection, prefix: deps.redisKeys.bullPrefix() });
    expect(await queue.getJobState(events[0]!.requestId)).toBe('waiting');
    // The flush: every key of this test's prefix (the shared test Redis serves other tests too).
    await deleteKeysWithPrefix(deps.redis, deps.redisKeys.prefix);
    expect(await queue.getJobState(events[0]!.requestId)).toBe('unknown');
    await startWorker();
    expect(recorder.stats().pending).toBeGreaterThanOrEqual(events.length);
    expect(await recorder.drain(30_000)).toBe(true);
    await queue.close();
    connection.disconnect();
    await expectExact(fixture, events);
  });
});
