/**
 * The billing worker as a separate process, SIGKILLed while a batch transaction is open, then
 * restarted: afterwards the sum of usage rows = the wallet drop = the sum of the events, to the credit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Client } from 'pg';
import { createUsageRecorder, type UsageRecorderHandle } from '../../../src/billing/create-usage-recorder';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { createBillingFixture, creditsByKey, eventually, readTotals, sumCredits, usageEvent } from './billing-fixtures';

const ROOT = path.resolve(__dirname, '../../..');
const APPLICATION_NAME = 'billing-worker-kill-test';

function spawnWorker(env: Record<string, string>): Promise<ChildProcess> {
  // `node --import tsx`, not the tsx CLI: the CLI runs the script in a child process that a SIGKILL
  // of the CLI would leave running.
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'billing-worker-process.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker exited early (${String(code)}): ${stderr}`)));
  });
}

function waitForExit(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
}

describe('billing worker process killed mid-batch', () => {
  let deps: TestDependencies;
  let recorder: UsageRecorderHandle;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    deps = await createTestDependencies();
    recorder = createUsageRecorder(deps, { confirmAfterMs: 1_000, sweepIntervalMs: 250 });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(children.map(waitForExit));
    await recorder.close();
    await deps.close();
  });

  it('loses nothing and writes nothing twice', async () => {
    const fixture = await createBillingFixture(deps.db, deps.crypto, { keys: 4 });
    const events = Array.from({ length: 1_500 }, () => usageEvent(fixture));
    await Promise.all(events.map((event) => recorder.record(event)));
    expect(await recorder.flush()).toBe(true);

    const url = new URL(deps.env.DATABASE_URL ?? '');
    url.searchParams.set('application_name', APPLICATION_NAME);
    const env = {
      ...deps.env,
      DATABASE_URL: url.toString(),
      BILLING_TEST_CONCURRENCY: '25',
      BILLING_TEST_LOCK_MS: '2000',
      BILLING_TEST_STALLED_MS: '500',
    };
    const first = await spawnWorker({ ...env, BILLING_TEST_COMMIT_DELAY_MS: '40' });
    children.push(first);

    // Kill while a batch transaction of the worker is open, once some batches have committed.
    const observer = new Client({ connectionString: deps.env.DATABASE_URL });
    await observer.connect();
    await eventually(
      'an open batch transaction after some commits',
      async () => {
        const rows = (await readTotals(deps.db, fixture.accountId)).rows;
        const open = await observer.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1 AND state = 'idle in transaction'",
          [APPLICATION_NAME],
        );
        return { rows, open: open.rows[0]?.n ?? 0 };
      },
      ({ rows, open }) => rows >= 200 && open > 0,
      60_000,
    );
    first.kill('SIGKILL');
    await waitForExit(first);
    expect(first.signalCode).toBe('SIGKILL');
    // The worker is really gone: PostgreSQL has dropped its connections (and rolled back the open batch).
    await eventually(
      'the killed worker to disconnect',
      async () =>
        (
          await observer.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1', [
            APPLICATION_NAME,
          ])
        ).rows[0]?.n ?? -1,
      (n) => n === 0,
    );
    const atKill = await readTotals(deps.db, fixture.accountId);
    expect(atKill.rows).toBeGreaterThan(0);
    expect(atKill.rows).toBeLessThan(events.length);
    // The killed transaction was rolled back, not half-applied: the books balance at every moment.
    expect(atKill.ledgerSum).toBe(atKill.balance);
    expect(fixture.startingBalance - atKill.balance).toBe(atKill.rowCredits);

    const second = await spawnWorker(env);
    children.push(second);
    expect(await recorder.drain(60_000)).toBe(true);
    await observer.end();
    second.kill('SIGTERM');
    await waitForExit(second);

    const totals = await readTotals(deps.db, fixture.accountId);
    expect(totals.rows).toBe(events.length);
    expect(totals.rowCredits).toBe(sumCredits(events));
    expect(fixture.startingBalance - totals.balance).toBe(sumCredits(events));
    expect(totals.ledgerSum).toBe(totals.balance);
    expect(totals.charges).toBe(events.length);
    for (const [keyId, credits] of creditsByKey(events)) expect(totals.keySpent.get(keyId)).toBe(credits);
  }, 120_000);
});
