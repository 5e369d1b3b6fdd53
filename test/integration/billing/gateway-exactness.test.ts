/**
 * Exactness through the whole gateway (relay, admission, recorder, billing worker) on real Redis and
 * PostgreSQL: 500 calls over the four protocols, streamed and not, 50 at a time, mixed with upstream
 * faults, error frames after the first byte, bad input and client aborts. Afterwards the wallet drop
 * = the sum of the usage rows = the sum of the expected costs of the successful calls plus what the
 * aborted streams produced, to the credit; failed calls left no row. Then the same with the billing
 * worker in its own process, SIGKILLed in the middle and restarted.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { startBillingWorker, type BillingWorker } from '../../../workers/billing-worker';
import { reconcile } from '../../../workers/reconciler';
import { startTestGateway, type TestGateway } from '../../support/gateway';
import { deleteKeysWithPrefix, eventually, readTotals } from './billing-fixtures';
import { createTrafficKeys, planCalls, runTraffic, type CallResult } from './gateway-traffic';

jest.setTimeout(180_000);

const CALLS = 500;
const CONCURRENCY = 50;
const STARTING_BALANCE = 100_000_000; // the bootstrap account's top-up

interface UsageRow {
  request_id: string;
  credits: number;
  status: string;
  model: string;
  protocol: string;
  api_key_id: number;
}

async function startGateway(): Promise<TestGateway> {
  const gateway = await startTestGateway({ env: { UPSTREAM_COOLDOWN_MS: '60000' } });
  // 50 calls at once need more than the pro tier's 25 leases.
  await gateway.deps.db.query('UPDATE accounts SET concurrency_cap = 500 WHERE id = $1', [gateway.accountId]);
  return gateway;
}

async function checkExact(gateway: TestGateway, results: CallResult[], options: { redisFlushed?: boolean } = {}): Promise<void> {
  const { db } = gateway.deps;
  const billable = results.filter((r) => r.kind === 'ok' || r.kind === 'failover' || r.kind === 'abort');
  await eventually(
    'every billable call to be written',
    async () =>
      (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_rows WHERE account_id = $1', [gateway.accountId])).rows[0]?.n ??
      0,
    (n) => n >= billable.length,
    60_000,
  ).catch(async (error: unknown) => {
    // Name the calls that never got a row: far more useful than a count.
    const written = new Set(
      (await db.query<{ request_id: string }>('SELECT request_id FROM usage_rows WHERE account_id = $1', [gateway.accountId])).rows.map(
        (r) => r.request_id,
      ),
    );
    const missing = billable.filter((r) => r.requestId === null || !written.has(r.requestId));
    throw new Error(
      `${(error as Error).message}; no row for ${missing.map((r) => `#${r.index} ${r.kind} ${r.protocol} stream=${String(r.stream)}`).join(', ')}`,
    );
  });
  const rows = (
    await db.query<UsageRow>('SELECT request_id, credits, status, model, protocol, api_key_id FROM usage_rows WHERE account_id = $1', [
      gateway.accountId,
    ])
  ).rows;
  const byRequest = new Map(rows.map((row) => [row.request_id, row]));
  expect(rows).toHaveLength(billable.length);

  for (const result of results) {
    const row = result.requestId === null ? undefined : byRequest.get(result.requestId);
    const what = `${result.kind} ${result.protocol} ${result.model} stream=${String(result.stream)} #${result.index}`;
    switch (result.kind) {
      case 'ok':
      case 'failover':
        expect([what, result.status]).toEqual([what, 200]);
        expect([what, row?.credits, row?.status, row?.model]).toEqual([what, result.expectedCredits, 'ok', result.model]);
        if (!result.stream) expect([what, result.costHeader]).toEqual([what, result.expectedCredits]);
        break;
      case 'abort':
        // Billed for what was produced until the abort: something, but less than the whole answer.
        expect([what, row?.status]).toEqual([what, 'aborted']);
        expect(row?.credits).toBeGreaterThan(0);
        expect(row?.credits).toBeLessThan(result.expectedCredits);
        break;
      case 'upstream-fault':
      case 'bad-input':
        expect([what, result.status >= 400]).toEqual([what, true]);
        expect([what, row]).toEqual([what, undefined]);
        break;
      case 'error-frame':
        // Streams fail after the first byte with the protocol's error frame; whole answers fail before it.
        if (result.stream) expect([what, result.status, /error/i.test(result.body)]).toEqual([what, 200, true]);
        else expect([what, result.status >= 500]).toEqual([what, true]);
        expect([what, row]).toEqual([what, undefined]);
        break;
    }
  }

  const expectedComplete = billable.filter((r) => r.kind !== 'abort').reduce((sum, r) => sum + r.expectedCredits, 0);
  const aborted = rows.filter((row) => row.status === 'aborted').reduce((sum, row) => sum + row.credits, 0);
  const rowCredits = rows.reduce((sum, row) => sum + row.credits, 0);
  const totals = await readTotals(db, gateway.accountId);
  expect(rowCredits).toBe(expectedComplete + aborted);
  expect(STARTING_BALANCE - totals.balance).toBe(rowCredits);
  expect(totals.ledgerSum).toBe(totals.balance);
  expect(-totals.chargeSum).toBe(rowCredits);
  expect([...totals.keySpent.values()].reduce((a, b) => a + b, 0)).toBe(rowCredits);

  // Redis settled every charge at once and PostgreSQL has them all now: they agree without repair,
  // unless Redis lost charges in a flush, which the reconciler restores.
  const report = await reconcile(gateway.deps, { accountIds: [gateway.accountId], confirmDelayMs: 100 });
  if (options.redisFlushed) {
    expect(report.accountsRepaired).toBe(1);
    expect(report.drift.wallet).toBeGreaterThan(0);
  } else {
    expect(report).toMatchObject({
      accountsChecked: 1,
      accountsRepaired: 0,
      missingCounters: 0,
      drift: { wallet: 0, keySpent: 0, keyWindow: 0 },
    });
  }
  expect(Number(await gateway.deps.redis.hget(gateway.deps.redisKeys.account(gateway.accountId), 'wallet'))).toBe(totals.balance);
  for (const [keyId, spent] of totals.keySpent) {
    const redisSpent = await gateway.deps.redis.hget(gateway.deps.redisKeys.apiKey(gateway.accountId, keyId), 'spent');
    if (spent > 0 || redisSpent !== null) expect([keyId, Number(redisSpent)]).toEqual([keyId, spent]);
  }
  expect(await reconcile(gateway.deps, { accountIds: [gateway.accountId], confirmDelayMs: 100 })).toMatchObject({
    accountsRepaired: 0,
    drift: { wallet: 0, keySpent: 0, keyWindow: 0 },
  });
}

describe('billing exactness through the gateway', () => {
  it(`${CALLS} mixed calls at concurrency ${CONCURRENCY}, worker in process`, async () => {
    const gateway = await startGateway();
    let worker: BillingWorker | undefined;
    try {
      worker = await startBillingWorker(gateway.deps, { concurrency: 25 });
      const keys = await createTrafficKeys(gateway);
      const results = await runTraffic(gateway, keys, planCalls(CALLS), CONCURRENCY);
      expect(new Set(results.map((r) => r.kind)).size).toBe(6);
      await checkExact(gateway, results);
    } finally {
      await worker?.close();
      await gateway.close();
    }
  });

  it(`${CALLS} mixed calls with Redis flushed in the middle (billing jobs included): nothing is lost, counters restored`, async () => {
    const gateway = await startGateway();
    let worker: BillingWorker | undefined;
    try {
      worker = await startBillingWorker(gateway.deps, { concurrency: 25 });
      const keys = await createTrafficKeys(gateway);
      let flushed = 0;
      const results = await runTraffic(gateway, keys, planCalls(CALLS), CONCURRENCY, async (done) => {
        // Billing jobs pile up while the worker is away, then Redis loses them with everything else.
        if (done === 200) {
          const stopping = worker;
          worker = undefined;
          await stopping?.close();
        }
        if (done === 250) flushed = await deleteKeysWithPrefix(gateway.deps.redis, gateway.deps.redisKeys.prefix);
        if (done === 300) worker = await startBillingWorker(gateway.deps, { concurrency: 25 });
      });
      expect(flushed).toBeGreaterThan(0);
      await checkExact(gateway, results, { redisFlushed: true });
    } finally {
      await worker?.close();
      await gateway.close();
    }
  });

  it(`${CALLS} mixed calls with the billing worker SIGKILLed in the middle and restarted`, async () => {
    const gateway = await startGateway();
    const children: ChildProcess[] = [];
    const url = new URL(gateway.deps.env.DATABASE_URL ?? '');
    url.searchParams.set('application_name', 'billing-worker-exactness');
    const workerDatabaseUrl = url.toString();
    const openTransactions = async () =>
      (
        await gateway.deps.db.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'billing-worker-exactness' AND state = 'idle in transaction'",
        )
      ).rows[0]?.n ?? 0;
    const spawnWorker = () =>
      new Promise<ChildProcess>((resolve, reject) => {
        // `node --import tsx`: one process, so SIGKILL kills the worker itself (the tsx CLI would leave its child running).
        const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'billing-worker-process.ts')], {
          cwd: path.resolve(__dirname, '../../..'),
          env: {
            ...process.env,
            ...gateway.deps.env,
            DATABASE_URL: workerDatabaseUrl,
            BILLING_TEST_CONCURRENCY: '25',
            BILLING_TEST_LOCK_MS: '2000',
            BILLING_TEST_STALLED_MS: '500',
            BILLING_TEST_COMMIT_DELAY_MS: '20',
          },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(child);
        child.stdout?.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('ready')) resolve(child);
        });
        child.once('exit', (code, signal) => reject(new Error(`billing worker exited (${String(code ?? signal)})`)));
      });
    const exited = (child: ChildProcess) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once('exit', () => resolve());
      });
    try {
      let current = await spawnWorker();
      const keys = await createTrafficKeys(gateway);
      let killedAt = -1;
      let rowsAtKill = -1;
      const results = await runTraffic(gateway, keys, planCalls(CALLS), CONCURRENCY, async (done) => {
        if (killedAt >= 0 || done < CALLS / 2) return;
        killedAt = done;
        // Kill inside a batch transaction: wait until the worker holds one open (traffic goes on meanwhile).
        await eventually('an open batch transaction', openTransactions, (n) => n > 0, 30_000);
        current.kill('SIGKILL');
        await exited(current);
        await eventually(
          'the killed worker to disconnect',
          async () =>
            (
              await gateway.deps.db.query<{ n: number }>(
                "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'billing-worker-exactness'",
              )
            ).rows[0]?.n ?? -1,
          (n) => n === 0,
        );
        rowsAtKill = (await readTotals(gateway.deps.db, gateway.accountId)).rows;
        current = await spawnWorker();
      });
      expect(killedAt).toBeGreaterThan(0);
      // The kill landed after part of the traffic was settled, and before all of it was.
      expect(rowsAtKill).toBeGreaterThan(0);
      expect(rowsAtKill).toBeLessThan(results.filter((r) => r.kind === 'ok' || r.kind === 'failover' || r.kind === 'abort').length);
      await checkExact(gateway, results);
      current.kill('SIGTERM');
      await exited(current);
    } finally {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await Promise.all(children.map(exited));
      await gateway.close();
    }
  });
});
