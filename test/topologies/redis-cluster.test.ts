/**
 * The gateway on a Redis Cluster of its own (3 masters, 3 replicas): the API and a worker (billing,
 * maintenance: BullMQ) as separate processes configured by REDIS_CLUSTER_NODES. Mixed load is billed
 * exactly (settlement's script and every MULTI stay in one slot); then the master serving the test
 * account's slot is SIGKILLed under load and its replica takes over. Every request of the load is in the
 * request log (whole answers' records ride in the settlement script, so its keys share the slot too).
 */
import Redis from 'ioredis';
import { createRedisKeys } from '../../src/redis/keys';
import { printFigures } from '../chaos/chaos-figures';
import { sleep, startChaosWorld, type ChaosWorld } from '../chaos/chaos-harness';
import { ask, cpuSeconds, startOwnCluster } from './redis-servers';
import {
  expectBilledExactly,
  expectBullMqWorks,
  expectRecordedExactly,
  expectExactnessSuite,
  expectNoLeaseLeft,
  ledgerFigures,
  mixedLoad,
  newTally,
  probeThroughFailover,
} from './topology-scenario';

jest.setTimeout(120_000);

const LEASE_TTL_MS = 5_000;

describe('Redis Cluster (3 masters, 3 replicas)', () => {
  let cluster: Awaited<ReturnType<typeof startOwnCluster>>;
  let world: ChaosWorld;

  beforeAll(async () => {
    cluster = await startOwnCluster();
    world = await startChaosWorld({ env: { ...cluster.env, LEASE_TTL_MS: String(LEASE_TTL_MS) } });
  });
  /** The slot every admission and settlement of the test account goes to (its shard's). */
  const slotOfAccount = async () => {
    const probe = new Redis(cluster.nodes[0]!.port, '127.0.0.1');
    try {
      return Number(await probe.cluster('KEYSLOT', createRedisKeys(world.env.REDIS_PREFIX).account(world.accountId)));
    } finally {
      probe.disconnect();
    }
  };
  /** The test account's admission hash on the slot's current master (wallet, reservations). */
  const accountState = async (slot: number) =>
    JSON.stringify(
      await ask((await cluster.masterOfSlot(slot)).port, (node) =>
        node.hgetall(createRedisKeys(world.env.REDIS_PREFIX).account(world.accountId)),
      ),
    );
  afterAll(async () => {
    await world?.close();
    await cluster?.close();
  });

  it('bullmq_on_cluster: the worker process registers its scheduler, a job queued here is taken by a worker here', async () => {
    await expectBullMqWorks(world);
  });

  it('cluster_exactness_suite: failovers, upstream faults, error frames, bad input and aborts are billed exactly', async () => {
    const figures = await expectExactnessSuite(world, 96, 8);
    printFigures('cluster exactness suite', figures);
  });

  it('cluster_billing_exactness: mixed load over the four protocols, plain and streamed, is billed exactly', async () => {
    const before = await ledgerFigures(world.db, world.accountId);
    // Sizing (docs/operations.md): the CPU the master of this account's shard spends per request.
    const shardMaster = await cluster.masterOfSlot(await slotOfAccount());
    const cpuBefore = await cpuSeconds(shardMaster.port);
    const sinceMs = Date.now();
    const tally = newTally();
    const traffic = mixedLoad(world, tally, 6);
    await sleep(4_000);
    await traffic.stop();
    const cpuPerRequestUs = (((await cpuSeconds(shardMaster.port)) - cpuBefore) * 1e6) / tally.requests;
    expect(tally.broken).toEqual([]);
    expect(tally.dropped).toBe(0);
    const delivered = tally.byStatus[200] ?? 0;
    expect(delivered).toBe(tally.requests);
    await expectBilledExactly(world, before, delivered);
    await expectRecordedExactly(world, sinceMs, tally.requests);
    printFigures('cluster exactness', {
      requests: tally.requests,
      perSecond: Math.round(tally.requests / 4),
      shardMasterCpuUsPerRequest: Math.round(cpuPerRequestUs),
      shardCeilingPerSecond: Math.round(1e6 / cpuPerRequestUs),
    });
  });

  it("cluster_master_failover: a killed master's replica takes over; refusals are 503s within 1 s, nothing billed is lost", async () => {
    const before = await ledgerFigures(world.db, world.accountId);
    const tally = newTally();
    const traffic = mixedLoad(world, tally, 4);
    await sleep(1_500);
    const slot = await slotOfAccount();
    const master = await cluster.masterOfSlot(slot);
    const figures = await probeThroughFailover(
      world,
      tally,
      () => master.server.kill('SIGKILL'),
      async () =>
        `slot ${slot} served by ${(await cluster.masterOfSlot(slot)).port} (killed: ${master.port}); account state there: ${await accountState(slot)}`,
    );
    await sleep(1_000);
    await traffic.stop();
    expect(figures.refusals).toBeGreaterThan(0);
    expect(tally.broken).toEqual([]);
    expect(world.api.output.filter((line) => line.includes('unhandled error'))).toEqual([]);
    expect((await cluster.masterOfSlot(slot)).port).not.toBe(master.port);
    const { writtenAfterMs } = await expectBilledExactly(world, before, tally.byStatus[200] ?? 0);
    const leasesGoneAfterMs = await expectNoLeaseLeft(world, LEASE_TTL_MS);
    printFigures('cluster failover', {
      ...figures,
      requests: tally.requests,
      byStatus: tally.byStatus,
      slowestLoadRefusalMs: tally.slowestRefusalMs,
      writtenAfterMs,
      leasesGoneAfterMs,
    });
  });
});
