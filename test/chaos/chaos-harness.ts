/**
 * The world of a chaos scenario: a redis-server of its own on a free port (5400–5499 first, so it can
 * be SIGKILLed and restarted empty without touching the shared one), a fresh PostgreSQL database (or a
 * cluster of its own), and the simulator, the API and a worker as separate processes started with
 * `node --import tsx` (so a SIGKILL really kills them). Observations go through HTTP and PostgreSQL
 * only, never billing internals.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import path from 'node:path';
import { Pool } from 'pg';
import { createSecretCrypto } from '../../src/auth/secret-crypto';
import { Catalog } from '../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import { loadConfig } from '../../src/config';
import { bootstrap } from '../../src/process/bootstrap';
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import type { Protocol } from '../../src/ir/protocol';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { createTestDatabase, type TestDatabase } from '../support/database';

const ROOT = path.resolve(__dirname, '..', '..');

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A free loopback port, from 5400–5499 in random order, else any ephemeral one. */
export async function freePort(): Promise<number> {
  const candidates = Array.from({ length: 100 }, (_, i) => 5400 + i).sort(() => Math.random() - 0.5);
  for (const port of candidates) if (await portIsFree(port)) return port;
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface ChildHandle {
  child: ChildProcess;
  output: string[];
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

export function startChild(command: string, args: string[], env: Record<string, string>): ChildHandle {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  const listeners = new Set<() => void>();
  const collect = (chunk: Buffer) => {
    output.push(...chunk.toString().split('\n').filter(Boolean));
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  return {
    child,
    output,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          for (const line of output) {
            const match = pattern.exec(line);
            if (match) {
              cleanup();
              resolve(match);
              return;
            }
          }
        };
        const onExit = () => {
          cleanup();
          reject(new Error(`${args.join(' ')} exited before ${String(pattern)}:\n${output.slice(-20).join('\n')}`));
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for ${String(pattern)}:\n${output.slice(-20).join('\n')}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.once('exit', onExit);
        check();
      });
    },
    async kill(signal = 'SIGKILL') {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill(signal);
      await exited;
    },
  };
}

/** A node process running a TypeScript entry through tsx in-process (SIGKILL kills it, no launcher). */
export function startNodeProcess(entry: string, env: Record<string, string>, args: string[] = []): ChildHandle {
  return startChild(process.execPath, ['--import', 'tsx', path.join(ROOT, entry), ...args], env);
}

export interface OwnRedis {
  url: string;
  port: number;
  /** SIGKILLs the server: its data is gone (no persistence). */
  kill(): Promise<void>;
  /** Starts it again, empty, on the same port. */
  start(): Promise<void>;
}

export async function startOwnRedis(): Promise<OwnRedis> {
  let port = await freePort();
  let server: ChildHandle | undefined;
  const start = async () => {
    server = startChild('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {});
    await server.waitFor(/Ready to accept connections/, 20_000);
  };
  // A port found free may be taken before redis-server binds it (another test file's process, started
  // at the same moment): the first start moves to another port then; a restart keeps its port.
  for (let attempt = 1; ; attempt++) {
    try {
      await start();
      break;
    } catch (error) {
      if (attempt >= 5 || !/Address already in use/.test(String(error))) throw error;
      port = await freePort();
    }
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    kill: async () => {
      await server?.kill('SIGKILL');
    },
    start,
  };
}

export interface ChaosWorld {
  env: Record<string, string>;
  db: Pool;
  redis: OwnRedis;
  simUrl: string;
  api: ChildHandle & { url: string };
  key: string;
  accountId: number;
  /** Keys of the groups asked for, by group name (same account as `key`). */
  groupKeys: Record<string, string>;
  workers: ChildHandle[];
  startApi(): Promise<ChildHandle & { url: string }>;
  startWorker(queues?: string): Promise<ChildHandle>;
  close(): Promise<void>;
}

/** A routing group whose single upstream account is the simulator behind a control prefix (`/_fault/503`, `/_latency/800/0`). */
export interface GroupSpec {
  name: string;
  prefix: string;
  protocol: Protocol;
  models: string[];
}

export async function startChaosWorld(
  options: { databaseUrl?: string; env?: Record<string, string>; worker?: boolean; groups?: GroupSpec[] } = {},
): Promise<ChaosWorld> {
  const redis = await startOwnRedis();
  let testDb: TestDatabase | undefined;
  if (!options.databaseUrl) testDb = await createTestDatabase();
  const databaseUrl = options.databaseUrl ?? testDb!.url;
  const simPort = await freePort();
  const sim = startNodeProcess('scripts/provider-sim/main.ts', { SIM_PORT: String(simPort), SIM_VIDEO_MS: '0' });
  await sim.waitFor(/listening on/);
  const simUrl = `http://127.0.0.1:${simPort}`;
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    REDIS_PREFIX: `chaos${randomBytes(4).toString('hex')}`,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    HMAC_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    S3_ENDPOINT: 'http://127.0.0.1:9',
    LEASE_TTL_MS: '15000',
    ...options.env,
  };
  const db = new Pool({ connectionString: databaseUrl, max: 4 });
  db.on('error', () => undefined);
  const config = loadConfig(env);
  const crypto = createSecretCrypto(config.encryptionKey, config.hmacSecret);
  const boot = await bootstrap(db, crypto, new Catalog(DEFAULT_CATALOG), { simulatorUrl: simUrl, simulatorKey: 'sim-key' });
  const groupKeys: Record<string, string> = {};
  for (const group of options.groups ?? []) {
    const groupId = await createGroup(db, { name: group.name, family: null });
    await addUpstreamAccount(db, crypto, {
      groupId,
      name: group.name,
      protocol: group.protocol,
      baseUrl: simUrl + group.prefix,
      apiKey: 'sim-key',
      models: group.models,
    });
    groupKeys[group.name] = (await insertApiKey(db, crypto, { accountId: boot.accountId!, groupId, name: group.name })).secret;
  }
  const children: ChildHandle[] = [sim];
  const workers: ChildHandle[] = [];
  const startApi = async () => {
    const api = startNodeProcess('test/chaos/api-process.ts', env);
    children.push(api);
    const [, url] = await api.waitFor(/^LISTENING (\S+)/, 60_000);
    return Object.assign(api, { url: url! });
  };
  const startWorker = async (queues = 'billing,maintenance') => {
    const worker = startNodeProcess('workers/index.ts', { ...env, LOG_LEVEL: 'info', WORKER_QUEUES: queues });
    children.push(worker);
    workers.push(worker);
    await worker.waitFor(/worker started/, 60_000);
    return worker;
  };
  const world: ChaosWorld = {
    env,
    db,
    redis,
    simUrl,
    key: boot.key!,
    accountId: boot.accountId!,
    groupKeys,
    workers,
    startApi,
    startWorker,
    api: await startApi(),
    async close() {
      await Promise.all(children.map((child) => child.kill('SIGKILL')));
      await redis.kill();
      await db.end().catch(() => undefined);
      await testDb?.drop();
    },
  };
  if (options.worker !== false) await startWorker();
  return world;
}
