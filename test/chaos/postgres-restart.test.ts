/**
 * Chaos: the gateway's PostgreSQL (a cluster of the test's own) stopped under load for a few seconds
 * and started again, nothing else restarted. While it is down every answer is a valid one of its
 * protocol (a 503 `unavailable` where PostgreSQL is needed, never a 500); afterwards the gateway
 * recovers within 10 s and every delivered answer is billed once.
 */
import { probe } from '../fuzz/http-probe';
import { answerProblem } from '../fuzz/envelopes';
import { sleep, startChaosWorld, type ChaosWorld } from './chaos-harness';
import { eventually, load, newTally, printFigures, settledFigures, ledgerFigures } from './chaos-figures';
import { startOwnPostgres, type OwnPostgres } from './own-postgres';

jest.setTimeout(240_000);

describe('chaos: PostgreSQL stopped and started under load', () => {
  let postgres: OwnPostgres;
  let world: ChaosWorld;
  beforeAll(async () => {
    postgres = await startOwnPostgres();
    // Events a worker failed to write while PostgreSQL was down are claimed again after 2 s idle (30 s in production).
    world = await startChaosWorld({ databaseUrl: postgres.url, env: { BILLING_CLAIM_IDLE_MS: '2000' } });
  });
  afterAll(async () => {
    await world?.close();
    postgres?.destroy();
  });

  it('answers in the right envelope while it is down, recovers within 10 s, never bills twice, and reports what stayed unbilled', async () => {
    const before = await ledgerFigures(world.db, world.accountId);
    const tally = newTally();
    let stop!: () => void;
    const running = load(
      () => world.api.url,
      world.key,
      4,
      tally,
      new Promise<void>((resolve) => {
        stop = resolve;
      }),
    );
    await sleep(2_000);
    postgres.stop();
    const stoppedAt = Date.now();
    const management: Record<number, number> = {};
    while (Date.now() - stoppedAt < 4_000) {
      const answer = await probe(world.api.url, {
        method: 'GET',
        path: '/api/v1/me/account',
        headers: { authorization: `Bearer ${world.key}` },
      }).catch((error: Error) => {
        throw new Error(`${error.message}; the API said:\n${world.api.output.slice(-30).join('\n')}`);
      });
      management[answer.status] = (management[answer.status] ?? 0) + 1;
      expect(answerProblem('gateway', answer)).toBeUndefined();
      await sleep(250);
    }
    postgres.start();
    const startedAt = Date.now();
    const recovery = await eventually(
      'the management API answering again',
      async () =>
        (await probe(world.api.url, { method: 'GET', path: '/api/v1/me/account', headers: { authorization: `Bearer ${world.key}` } }))
          .status,
      (status) => status === 200,
      10_000,
    );
    await sleep(2_000);
    stop();
    await running;
    const delivered = tally.byStatus[200] ?? 0;
    await eventually(
      'every delivered answer billed',
      () => ledgerFigures(world.db, world.accountId),
      (f) => f.usageRows - before.usageRows >= delivered,
      45_000,
    ).catch(() => undefined);
    const after = await settledFigures(world.db, world.accountId);
    printFigures('postgres-restart', {
      requests: tally.requests,
      byStatus: tally.byStatus,
      dropped: tally.dropped,
      managementWhileDown: management,
      outageMs: startedAt - stoppedAt,
      recoveryMs: recovery.afterMs,
      delivered,
      unbilled: delivered - (after.usageRows - before.usageRows),
      walletDrop: before.balance - after.balance,
      usageRows: after.usageRows - before.usageRows,
      usageCredits: after.usageCredits - before.usageCredits,
      apiUnhandledErrors: world.api.output.filter((line) => line.includes('unhandled error')).length,
    });
    if (after.usageRows - before.usageRows !== delivered || process.env.CHAOS_PRINT_WORKER) {
      // The worker's own account of what happened to the events it did not write.
      process.stdout.write(
        `worker output (last 80 lines):\n${world.workers
          .flatMap((worker) => worker.output)
          .slice(-80)
          .join('\n')}\n`,
      );
    }
    expect(tally.broken).toEqual([]);
    // Usage events wait in the Redis stream until PostgreSQL takes them: every delivered answer is billed, once.
    expect(after.usageRows - before.usageRows).toBe(delivered);
    expect(before.balance - after.balance).toBe(after.usageCredits - before.usageCredits);
  });
});
