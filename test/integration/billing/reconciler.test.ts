/**
 * Redis flushed in the middle of traffic, on real Redis and PostgreSQL with the real admission
 * scripts: nothing is lost (the API copies append the lost usage events again), and the reconciler
 * restores the counters (wallet cache, lifetime spend, spend windows) from the ledger, plus the
 * charges still in the usage stream.
 */
import { randomBytes } from 'node:crypto';
import type { AuthenticatedKey } from '../../../src/auth/authenticated-key';
import { loadAuthenticatedKeyById } from '../../../src/auth/load-authenticated-key';
import { chargeCall } from '../../../src/billing/charge-call';
import { createUsageRecorder, type UsageRecorderHandle } from '../../../src/billing/create-usage-recorder';
import type { UsageEvent } from '../../../src/billing/usage-event';
import { createAdmission, type GatewayAdmission } from '../../../src/limits/create-admission';
import { reconcile, startReconciler } from '../../../workers/reconciler';
import { startBillingWorker, type BillingWorker } from '../../../workers/billing-worker';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import {
  createBillingFixture,
  deleteKeysWithPrefix,
  eventually,
  readTotals,
  sumCredits,
  usageEvent,
  type BillingFixture,
} from './billing-fixtures';

describe('reconciler', () => {
  let deps: TestDependencies;
  let recorder: UsageRecorderHandle;
  let admission: GatewayAdmission;
  let worker: BillingWorker | undefined;

  beforeAll(async () => {
    deps = await createTestDependencies();
    recorder = createUsageRecorder(deps, { confirmAfterMs: 300, sweepIntervalMs: 100 });
    admission = createAdmission(deps);
  });
  afterAll(async () => {
    await worker?.close();
    await recorder.close();
    await deps.close();
  });

  const startWorker = async () => {
    worker = await startBillingWorker(deps, { concurrency: 10, lockDurationMs: 5_000 });
  };
  const stopWorker = async () => {
    await worker?.close();
    worker = undefined;
  };

  const loadKey = async (keyId: number): Promise<AuthenticatedKey> => {
    const key = await loadAuthenticatedKeyById(deps.db, keyId, Date.now());
    if (!key) throw new Error(`key ${keyId} not found`);
    return key;
  };

  /** What the relay does for one successful request: admit, then charge (counters settled and event appended in one script). */
  const admit = async (fixture: BillingFixture, key: AuthenticatedKey, credits: number) => {
    const event: UsageEvent = usageEvent(fixture, { apiKeyId: key.keyId, credits, requestId: `req_${randomBytes(12).toString('hex')}` });
    const ticket = await admission.admit({
      key,
      clientIp: '127.0.0.1',
      requestId: event.requestId,
      reserveCredits: credits * 2,
      takesLease: true,
    });
    return {
      event,
      async finish() {
        await chargeCall(ticket, recorder, { credits, usage: event });
        return event;
      },
    };
  };
  const request = async (fixture: BillingFixture, key: AuthenticatedKey, credits: number) => (await admit(fixture, key, credits)).finish();
  const traffic = async (fixture: BillingFixture, keys: AuthenticatedKey[], count: number) => {
    const events: UsageEvent[] = [];
    for (let start = 0; start < count; start += 10) {
      events.push(
        ...(await Promise.all(
          Array.from({ length: Math.min(10, count - start) }, (_, index) =>
            request(fixture, keys[(start + index) % keys.length]!, 1_000 + (((start + index) * 37) % 900)),
          ),
        )),
      );
    }
    return events;
  };

  const redisFigures = async (fixture: BillingFixture) => {
    const wallet = await deps.redis.hget(deps.redisKeys.account(fixture.accountId), 'wallet');
    const keys = new Map<number, { spent: number | null; windowSum: number; w7d: number | null }>();
    for (const keyId of fixture.keyIds) {
      const spent = await deps.redis.hget(deps.redisKeys.apiKey(fixture.accountId, keyId), 'spent');
      const w7d = await deps.redis.hget(deps.redisKeys.apiKey(fixture.accountId, keyId), 'w7d');
      const buckets = await deps.redis.hgetall(deps.redisKeys.apiKeySpendWindow(fixture.accountId, keyId));
      keys.set(keyId, {
        spent: spent === null ? null : Number(spent),
        w7d: w7d === null ? null : Number(w7d),
        windowSum: Object.values(buckets).reduce((sum, v) => sum + Number(v), 0),
      });
    }
    return { wallet: wallet === null ? null : Number(wallet), keys };
  };

  const expectRedisMatchesLedger = async (fixture: BillingFixture, unsettled: readonly UsageEvent[] = []) => {
    const totals = await readTotals(deps.db, fixture.accountId);
    const redis = await redisFigures(fixture);
    expect(redis.wallet).toBe(totals.balance - sumCredits(unsettled));
    for (const keyId of fixture.keyIds) {
      const pendingForKey = sumCredits(unsettled.filter((event) => event.apiKeyId === keyId));
      const used = await deps.db.query<{ credits: number | null }>(
        'SELECT sum(credits)::bigint AS credits FROM usage_rows WHERE api_key_id = $1',
        [keyId],
      );
      const key = redis.keys.get(keyId);
      expect(key?.spent).toBe((totals.keySpent.get(keyId) ?? 0) + pendingForKey);
      expect(key?.windowSum).toBe((used.rows[0]?.credits ?? 0) + pendingForKey);
      expect(key?.w7d).toBe((used.rows[0]?.credits ?? 0) + pendingForKey);
    }
  };

  it('finds no drift when Redis and the ledger agree', async () => {
    await startWorker();
    const fixture = await createBillingFixture(deps.db, deps.crypto, { keys: 2 });
    const keys = await Promise.all(fixture.keyIds.map(loadKey));
    await traffic(fixture, keys, 40);
    expect(await recorder.drain()).toBe(true);
    await expectRedisMatchesLedger(fixture);
    const report = await reconcile(deps, { accountIds: [fixture.accountId], confirmDelayMs: 100 });
    expect(report).toMatchObject({ accountsChecked: 1, accountsRepaired: 0, drift: { wallet: 0, keySpent: 0, keyWindow: 0 } });
  });

  it('Redis flushed mid-traffic: nothing is lost, and the reconciler restores every counter', async () => {
    if (!worker) await startWorker();
    const fixture = await createBillingFixture(deps.db, deps.crypto, { keys: 2 });
    const keys = await Promise.all(fixture.keyIds.map(loadKey));
    const before = await traffic(fixture, keys, 60);
    expect(await recorder.drain()).toBe(true);
    // Billing jobs pile up in Redis (the worker is down), then Redis loses everything, including
    // requests in flight whose settlement will find no counters.
    await stopWorker();
    const queued = await traffic(fixture, keys, 30);
    expect(await recorder.flush()).toBe(true);
    const inFlight = await Promise.all(keys.map((key) => admit(fixture, key, 777)));
    const flushed = await deleteKeysWithPrefix(deps.redis, deps.redisKeys.prefix);
    expect(flushed).toBeGreaterThan(0);
    const settledAfterFlush = await Promise.all(inFlight.map((pending) => pending.finish()));
    // Traffic goes on: admission reloads the counters from PostgreSQL, which lacks the lost charges.
    const after = await traffic(fixture, keys, 30);
    await startWorker();
    expect(await recorder.drain(30_000)).toBe(true);

    const all = [...before, ...queued, ...settledAfterFlush, ...after];
    const totals = await readTotals(deps.db, fixture.accountId);
    expect(totals.rows).toBe(all.length);
    expect(totals.rowCredits).toBe(sumCredits(all));
    expect(fixture.startingBalance - totals.balance).toBe(sumCredits(all));
    expect(totals.ledgerSum).toBe(totals.balance);

    // Redis forgot the charges that were only in the lost jobs and the in-flight settlements.
    const stale = await redisFigures(fixture);
    expect(stale.wallet).toBe(totals.balance + sumCredits(queued) + sumCredits(settledAfterFlush));

    const report = await reconcile(deps, { accountIds: [fixture.accountId], confirmDelayMs: 100 });
    expect(report.accountsRepaired).toBe(1);
    expect(report.drift.wallet).toBe(sumCredits(queued) + sumCredits(settledAfterFlush));
    expect(report.drift.keySpent).toBe(sumCredits(queued) + sumCredits(settledAfterFlush));
    const gauge = await deps.metrics.reconcileDrift.get();
    expect(gauge.values.find((value) => value.labels.kind === 'wallet')?.value).toBe(report.drift.wallet);
    await expectRedisMatchesLedger(fixture);

    const again = await reconcile(deps, { accountIds: [fixture.accountId], confirmDelayMs: 100 });
    expect(again).toMatchObject({ accountsRepaired: 0, drift: { wallet: 0, keySpent: 0, keyWindow: 0 } });
  });

  it('restores flushed counters while billing jobs are still queued, counting those charges', async () => {
    if (!worker) await startWorker();
    const fixture = await createBillingFixture(deps.db, deps.crypto, { keys: 2 });
    const keys = await Promise.all(fixture.keyIds.map(loadKey));
    await traffic(fixture, keys, 20);
    expect(await recorder.drain()).toBe(true);
    await stopWorker();
    const queued = await traffic(fixture, keys, 20);
    expect(await recorder.flush()).toBe(true);
    await deleteKeysWithPrefix(deps.redis, deps.redisKeys.prefix);
    // The recorder notices the lost events and appends them again before the reconciler looks.
    await eventually(
      'lost events appended again',
      () => deps.redis.xlen(deps.redisKeys.accountUsageStream(fixture.accountId)),
      (length) => length === queued.length,
    );
    const missing = await redisFigures(fixture);
    expect(missing.wallet).toBeNull();

    const report = await reconcile(deps, { accountIds: [fixture.accountId], confirmDelayMs: 100 });
    expect(report).toMatchObject({ accountsRepaired: 1, missingCounters: 1, unsettledCredits: sumCredits(queued) });
    await expectRedisMatchesLedger(fixture, queued);

    await startWorker();
    expect(await recorder.drain()).toBe(true);
    await expectRedisMatchesLedger(fixture);
    expect(await reconcile(deps, { accountIds: [fixture.accountId], confirmDelayMs: 100 })).toMatchObject({ accountsRepaired: 0 });
  });

  it('runs as a repeatable job on the maintenance queue', async () => {
    if (!worker) await startWorker();
    const fixture = await createBillingFixture(deps.db, deps.crypto, { keys: 1 });
    const key = await loadKey(fixture.keyIds[0]!);
    await request(fixture, key, 5_000);
    expect(await recorder.drain()).toBe(true);
    // Drift by hand: the cached wallet says more than the ledger.
    await deps.redis.hincrby(deps.redisKeys.account(fixture.accountId), 'wallet', 1_234);
    const reconciler = await startReconciler(deps, { everyMs: 300, confirmDelayMs: 50 });
    try {
      await eventually(
        'the scheduled reconcile to repair the wallet',
        () => redisFigures(fixture),
        (figures) => figures.wallet === fixture.startingBalance - 5_000,
      );
    } finally {
      await reconciler.close();
    }
  });
});
