/**
 * Chaos: the gateway's own Redis SIGKILLed under load and restarted empty, with the API and a worker
 * (billing, maintenance) as separate processes that are never restarted. The two steps are the named
 * tests of issue 14 defect 5 (refusals while Redis is down) and defect 4 (the reconciler, billing and
 * the wallet cache recover after Redis lost its data). They share one world and run in order.
 */
import { Queue } from 'bullmq';
import { createRedis } from '../../src/redis/connection';
import { createRedisKeys } from '../../src/redis/keys';
import { envelopeProblem } from '../fuzz/envelopes';
import { probe } from '../fuzz/http-probe';
import { startChaosWorld, sleep, type ChaosWorld } from './chaos-harness';
import {
  accountingView,
  call,
  CALLS,
  eventually,
  ledgerFigures,
  load,
  newTally,
  PROTOCOLS,
  printFigures,
  type LedgerFigures,
} from './chaos-figures';

jest.setTimeout(180_000);

const UNAVAILABLE_SHAPE = {
  messages: { type: 'error', error: { type: 'overloaded_error' } },
  chat: { error: { type: 'api_error', code: 'api_error' } },
  responses: { error: { type: 'api_error', code: 'api_error' } },
  'generate-content': { error: { code: 503, status: 'UNAVAILABLE' } },
} as const;

describe('chaos: Redis SIGKILLed and restarted empty under load', () => {
  let world: ChaosWorld;
  let maintenance: Queue | undefined;
  let before: LedgerFigures;
  const tally = newTally();
  let stopLoad: () => void = () => undefined;
  let loadDone: Promise<void> = Promise.resolve();
  let killedAt = 0;
  const outage: Record<string, { status: number; ms: number; retryAfter: unknown }> = {};

  beforeAll(async () => {
    world = await startChaosWorld();
    before = await ledgerFigures(world.db, world.accountId);
  });
  afterAll(async () => {
    stopLoad();
    await loadDone;
    await maintenance?.close();
    await world?.close();
  });

  describe("issue 14 defect 5: Redis down → a 503 within 1 s in the protocol's own shape, logged once as degraded", () => {
    it('refuses every protocol fast, with Retry-After, and logs no unhandled error', async () => {
      loadDone = load(
        () => world.api.url,
        world.key,
        6,
        tally,
        new Promise<void>((resolve) => {
          stopLoad = resolve;
        }),
      );
      await sleep(2_500);
      await world.redis.kill();
      killedAt = Date.now();
      await sleep(500);
      for (const protocol of PROTOCOLS) {
        const startedAt = Date.now();
        const answer = await probe(world.api.url, CALLS[protocol](world.key));
        const ms = Date.now() - startedAt;
        outage[protocol] = { status: answer.status, ms, retryAfter: answer.headers['retry-after'] };
        expect({ protocol, status: answer.status }).toEqual({ protocol, status: 503 });
        expect(answer.json).toMatchObject(UNAVAILABLE_SHAPE[protocol]);
        expect(envelopeProblem(protocol, answer.json)).toBeUndefined();
        expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
        expect(ms).toBeLessThan(1_000);
      }
      await sleep(1_500);
      expect(world.api.output.filter((line) => line.includes('unhandled error'))).toEqual([]);
      expect(world.api.output.filter((line) => line.includes('dependency degraded')).length).toBe(1);
    });
  });

  describe('issue 14 defect 4: after Redis restarts empty, the reconciler runs again and the wallet cache is back in step, nothing restarted', () => {
    it('recovers within 10 s, bills every delivered answer once, and the cached wallet equals PostgreSQL within 60 s', async () => {
      await world.redis.start();
      const restartedAt = Date.now();
      maintenance = new Queue('maintenance', {
        connection: createRedis(world.redis.url, { waits: true }),
        prefix: createRedisKeys(world.env.REDIS_PREFIX!).bullPrefix(),
      });
      const rescheduled = await eventually(
        'the reconcile scheduler back in Redis',
        () => maintenance!.getJobSchedulersCount(),
        (count) => count >= 1,
        15_000,
      );
      const recovery = await eventually(
        'the first 200 after Redis came back',
        async () => {
          const answer = await call(world.api.url, world.key, 'chat', tally);
          return { status: answer?.status, text: answer?.text.slice(0, 200) };
        },
        (answer) => answer.status === 200,
        10_000,
      );
      await sleep(2_500);
      stopLoad();
      await loadDone;

      const delivered = tally.byStatus[200] ?? 0;
      const { value: after } = await eventually(
        'every delivered answer billed',
        () => ledgerFigures(world.db, world.accountId),
        (figures) => figures.usageRows >= delivered,
        60_000,
      );
      const cache = await eventually(
        'the cached wallet equal to the PostgreSQL balance',
        () => accountingView(world.api.url, world.key),
        (view) => view !== undefined && view.cachedWallet === after.balance,
        60_000 - (Date.now() - restartedAt),
      ).catch((error: Error) => {
        throw new Error(`${error.message}; balance ${after.balance}; worker said:\n${world.workers[0]?.output.slice(-15).join('\n')}`);
      });
      printFigures('redis-loss', {
        requests: tally.requests,
        byStatus: tally.byStatus,
        dropped: tally.dropped,
        slowestRefusalMs: tally.slowestRefusalMs,
        outage,
        outageMs: restartedAt - killedAt,
        schedulerBackAfterMs: rescheduled.afterMs,
        recoveryMs: recovery.afterMs,
        walletDrop: before.balance - after.balance,
        usageRows: after.usageRows,
        usageCredits: after.usageCredits,
        cacheInStepAfterRestartMs: Date.now() - restartedAt,
        leases: cache.value?.leases,
        apiLogLines: {
          unhandled: world.api.output.filter((line) => line.includes('unhandled error')).length,
          degraded: world.api.output.filter((line) => line.includes('dependency degraded')).length,
        },
      });
      expect(tally.broken).toEqual([]);
      expect(after.usageRows).toBe(delivered);
      expect(before.balance - after.balance).toBe(after.usageCredits - before.usageCredits);
      expect(cache.value?.leases).toBe(0);
    });
  });
});
