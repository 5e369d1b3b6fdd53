/**
 * Redis topologies of a test's own, on loopback ports picked at run time, from Debian's
 * `redis-server` (a sentinel is `redis-server <conf> --sentinel`, which is what Debian's
 * `redis-sentinel` runs) and `redis-cli`. No persistence: a SIGKILLed server's data is gone, as in
 * the worst failover. Failure detection is tuned fast (1 s) so a failover takes seconds.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import net from 'node:net';
import { sleep, startChild, type ChildHandle } from '../chaos/chaos-harness';

/** A port the OS just handed out (listen on 0): tests running at once never pick the same one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RedisNodeProcess {
  port: number;
  server: ChildHandle;
}

export interface OwnTopology {
  /** The gateway's environment for this topology (REDIS_URL blanked: one topology at a time). */
  env: Record<string, string>;
  nodes: RedisNodeProcess[];
  close(): Promise<void>;
}

const NO_PERSISTENCE = ['--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'];

async function startServer(dir: string, args: string[], port?: number): Promise<RedisNodeProcess> {
  const chosen = port ?? (await freePort());
  const server = startChild('redis-server', ['--port', String(chosen), '--dir', dir, ...NO_PERSISTENCE, ...args], {});
  await server.waitFor(/Ready to accept connections|Sentinel ID is/, 20_000);
  return { port: chosen, server };
}

async function eventuallyTrue(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** One command to one server, failing at once if it is not there (no retries). */
export async function ask<T>(port: number, command: (redis: Redis) => Promise<T>): Promise<T> {
  const redis = new Redis({ port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    return await command(redis);
  } finally {
    redis.disconnect();
  }
}

/** CPU seconds (user + system) the server process has used so far (INFO cpu). */
export async function cpuSeconds(port: number): Promise<number> {
  const info = String(await ask(port, (redis) => redis.info('cpu')));
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return field('used_cpu_user') + field('used_cpu_sys');
}

/** 3 masters, 3 replicas; a master's replica takes over 1 s after it stops answering. */
export async function startOwnCluster(): Promise<OwnTopology & { masterOfSlot(slot: number): Promise<RedisNodeProcess> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-cluster-'));
  const nodes: RedisNodeProcess[] = [];
  for (let index = 0; index < 6; index++) {
    // The bus port is chosen too: port + 10000 may be taken or past 65535.
    nodes.push(
      await startServer(dir, [
        '--cluster-enabled',
        'yes',
        '--cluster-port',
        String(await freePort()),
        '--cluster-config-file',
        `nodes-${index}.conf`,
        '--cluster-node-timeout',
        '1000',
        '--cluster-replica-validity-factor',
        '0',
        '--cluster-allow-reads-when-down',
        'no',
      ]),
    );
  }
  execFileSync(
    'redis-cli',
    ['--cluster', 'create', ...nodes.map((node) => `127.0.0.1:${node.port}`), '--cluster-replicas', '1', '--cluster-yes'],
    { stdio: 'pipe' },
  );
  await eventuallyTrue(
    'cluster state ok on every node',
    async () => {
      const states = await Promise.all(nodes.map((node) => ask(node.port, (redis) => redis.cluster('INFO'))));
      return states.every((info) => String(info).includes('cluster_state:ok'));
    },
    30_000,
  );
  return {
    env: {
      REDIS_URL: '',
      REDIS_CLUSTER_NODES: nodes
        .slice(0, 3)
        .map((node) => `127.0.0.1:${node.port}`)
        .join(','),
    },
    nodes,
    async masterOfSlot(slot) {
      const live = nodes.find((node) => node.server.child.exitCode === null && node.server.child.signalCode === null)!;
      const ranges = await ask(live.port, (redis) => redis.cluster('SLOTS'));
      const owner = ranges.find(([from, to]) => slot >= from && slot <= to);
      const node = nodes.find((candidate) => candidate.port === Number(owner?.[2]?.[1]));
      if (!node) throw new Error(`no master serves slot ${slot}`);
      return node;
    },
    async close() {
      await Promise.all(nodes.map((node) => node.server.kill('SIGKILL')));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A primary, one replica and three sentinels (quorum 2); the primary is taken for down after 1 s. A
 * failover whose leader election split the votes is tried again after 2 × failover-timeout: 4 s here
 * (with the default 3 minutes a split vote on a busy machine outlasts the test).
 */
export async function startOwnSentinelSet(
  name = 'gw',
): Promise<OwnTopology & { primary: RedisNodeProcess; currentPrimaryPort(): Promise<number> }> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'gw-sentinel-'));
  const primary = await startServer(dir, []);
  const replica = await startServer(dir, ['--replicaof', '127.0.0.1', String(primary.port)]);
  await eventuallyTrue(
    'replica in sync',
    async () => String(await ask(replica.port, (redis) => redis.info('replication'))).includes('master_link_status:up'),
    20_000,
  );
  const sentinels: RedisNodeProcess[] = [];
  for (let index = 0; index < 3; index++) {
    const port = await freePort();
    const conf = path.join(dir, `sentinel-${index}.conf`);
    writeFileSync(
      conf,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor ${name} 127.0.0.1 ${primary.port} 2`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 2000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    const server = startChild('redis-server', [conf, '--sentinel'], {});
    await server.waitFor(/Sentinel ID is/, 20_000);
    sentinels.push({ port, server });
  }
  const currentPrimaryPort = async () => {
    const live = sentinels.find((sentinel) => sentinel.server.child.exitCode === null)!;
    const address = (await ask(live.port, (redis) => redis.call('SENTINEL', 'get-master-addr-by-name', name))) as [string, string];
    return Number(address[1]);
  };
  await eventuallyTrue(
    'sentinels see the replica and each other',
    async () => {
      const flat = (await ask(sentinels[0]!.port, (redis) => redis.call('SENTINEL', 'master', name))) as string[];
      const fields = new Map<string, string>();
      for (let index = 0; index + 1 < flat.length; index += 2) fields.set(flat[index]!, flat[index + 1]!);
      return Number(fields.get('num-slaves')) >= 1 && Number(fields.get('num-other-sentinels')) >= 2;
    },
    30_000,
  );
  return {
    env: { REDIS_URL: '', REDIS_SENTINELS: sentinels.map((sentinel) => `127.0.0.1:${sentinel.port}`).join(','), REDIS_SENTINEL_NAME: name },
    nodes: [primary, replica, ...sentinels],
    primary,
    currentPrimaryPort,
    async close() {
      await Promise.all([primary, replica, ...sentinels].map((node) => node.server.kill('SIGKILL')));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
