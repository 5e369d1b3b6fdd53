/**
 * The gateway on a Sentinel set of its own (a primary, a replica, three sentinels): the API and a
 * worker (billing, maintenance: BullMQ) as separate processes configured by REDIS_SENTINELS. Mixed
 * load is billed exactly; then the primary is SIGKILLed under load, the sentinels promote the replica
 * and every connection (request path, BullMQ, pub/sub) follows it.
 */
import { printFigures } from '../chaos/chaos-figures';
import { sleep, startChaosWorld, type ChaosWorld } from '../chaos/chaos-harness';
import { cpuSeconds, startOwnSentinelSet } from './redis-servers';
import {
  expectBilledExactly,
  expectBullMqWorks,
  expectExactnessSuite,
  expectNoLeaseLeft,
  ledgerFigures,
  mixedLoad,
  newTally,
  probeThroughFailover,
} from './topology-scenario';

jest.setTimeout(120_000);

const LEASE_TTL_MS = 5_000;

describe('Redis Sentinel (primary, replica, three sentinels)', () => {
  let sentinel: Awaited<ReturnType<typeof startOwnSentinelSet>>;
  let world: ChaosWorld;

  beforeAll(async () => {
    sentinel = await startOwnSentinelSet();
    world = await startChaosWorld({ env: { ...sentinel.env, LEASE_TTL_MS: String(LEASE_TTL_MS) } });
  });
  afterAll(async () => {
    await world?.close();
    await sentinel?.close();
  });

  it('bullmq_on_sentinel: the worker process registers its scheduler, a job queued here is taken by a worker here', async () => {
    await expectBullMqWorks(world);
  });

  it('sentinel_exactness_suite: failovers, upstream faults, error frames, bad input and aborts are billed exactly', async () => {
    const figures = await expectExactnessSuite(world, 96, 8);
    printFigures('sentinel exactness suite', figures);
  });

  it('sentinel_billing_exactness: mixed load over the four protocols, plain and streamed, is billed exactly', async () => {
    const before = await ledgerFigures(world.db, world.accountId);
    // Sizing (docs/operations.md): the CPU the primary spends per request.
    const cpuBefore = await cpuSeconds(sentinel.primary.port);
    const tally = newTally();
    const traffic = mixedLoad(world, tally, 6);
    await sleep(4_000);
    await traffic.stop();
    const cpuPerRequestUs = (((await cpuSeconds(sentinel.primary.port)) - cpuBefore) * 1e6) / tally.requests;
    expect(tally.broken).toEqual([]);
    expect(tally.dropped).toBe(0);
    const delivered = tally.byStatus[200] ?? 0;
    expect(delivered).toBe(tally.requests);
    await expectBilledExactly(world, before, delivered);
    printFigures('sentinel exactness', {
      requests: tally.requests,
      perSecond: Math.round(tally.requests / 4),
      primaryCpuUsPerRequest: Math.round(cpuPerRequestUs),
      ceilingPerSecond: Math.round(1e6 / cpuPerRequestUs),
    });
  });

  it('sentinel_primary_failover: the replica is promoted; refusals are 503s within 1 s, nothing billed is lost', async () => {
    const before = await ledgerFigures(world.db, world.accountId);
    const tally = newTally();
    const traffic = mixedLoad(world, tally, 4);
    await sleep(1_500);
    const figures = await probeThroughFailover(
      world,
      tally,
      () => sentinel.primary.server.kill('SIGKILL'),
      async () =>
        `sentinels name port ${await sentinel.currentPrimaryPort()} as primary (killed: ${sentinel.primary.port}); sentinel log: ${sentinel.nodes[2]!.server.output.slice(-8).join(' | ')}`,
    );
    await sleep(1_000);
    await traffic.stop();
    expect(figures.refusals).toBeGreaterThan(0);
    expect(tally.broken).toEqual([]);
    expect(world.api.output.filter((line) => line.includes('unhandled error'))).toEqual([]);
    expect(await sentinel.currentPrimaryPort()).not.toBe(sentinel.primary.port);
    const { writtenAfterMs } = await expectBilledExactly(world, before, tally.byStatus[200] ?? 0);
    const leasesGoneAfterMs = await expectNoLeaseLeft(world, LEASE_TTL_MS);
    printFigures('sentinel failover', {
      ...figures,
      requests: tally.requests,
      byStatus: tally.byStatus,
      slowestLoadRefusalMs: tally.slowestRefusalMs,
      writtenAfterMs,
      leasesGoneAfterMs,
    });
  });
});
