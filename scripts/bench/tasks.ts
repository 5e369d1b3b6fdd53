/**
 * The task benchmark (issue 8): 1,000 video tasks against a provider with zero latency, through two
 * task-worker processes: tasks per second from the first submit to the last `succeeded`, and the
 * submit endpoint's latency (p50, p99). The provider finishing at once still leaves the interface's
 * cadence (first poll 2 s after submit), so the figure measures the pipeline, not the provider.
 *
 * Called by `npm run bench` (scripts/bench/main.ts) with the API it started; also runnable alone
 * (`npx tsx scripts/bench/tasks.ts`), which starts its own database, simulator and API first.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { Pool as HttpPool } from 'undici';
import { createSecretCrypto } from '../../src/auth/secret-crypto';
import { Catalog } from '../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import { bootstrap } from '../../src/process/bootstrap';
import { migrate } from '../../src/db/migrate';
import { createPool } from '../../src/db/pool';
import { addUpstreamAccount, createGroup, topUp } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { startEmbeddedS3 } from '../../src/storage/embedded-s3';
import { percentile } from './load';
import { startProcess, stopProcess, waitFor } from './processes';

export interface TaskBenchmarkOptions {
  /** The environment the API was started with (database, Redis prefix, secrets). */
  env: NodeJS.ProcessEnv;
  apiUrl: string;
  /** A key of the benchmark account (its account gets a group routed to a zero-latency provider). */
  key: string;
  simUrl: string;
  tasks?: number;
  /** Submits in flight at once. */
  submitConcurrency?: number;
  workers?: number;
  workerConcurrency?: number;
  /** The worker process entry and its arguments (default: the production `workers/index.ts --queues tasks`). */
  workerScript?: { path: string; args: string[] };
}

export interface TaskBenchmarkRow {
  scenario: string;
  target: string;
  value: number | string;
  [metric: string]: string | number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function submitAll(
  api: HttpPool,
  key: string,
  count: number,
  concurrency: number,
): Promise<{ ids: string[]; latencies: number[]; errors: string[] }> {
  const ids: string[] = [];
  const latencies: number[] = [];
  const errors: string[] = [];
  let next = 0;
  const body = JSON.stringify({ model: 'veo-3', prompt: 'benchmark clip', duration_seconds: 1, resolution: '720p' });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        next++;
        const started = process.hrtime.bigint();
        try {
          const response = await api.request({
            path: '/v1/tasks/submit',
            method: 'POST',
            headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
            body,
          });
          const text = await response.body.text();
          latencies.push(Number(process.hrtime.bigint() - started) / 1e6);
          if (response.statusCode === 200) ids.push((JSON.parse(text) as { task_id: string }).task_id);
          else errors.push(`${response.statusCode} ${text.slice(0, 200)}`);
        } catch (error) {
          errors.push((error as Error).message);
        }
      }
    }),
  );
  return { ids, latencies, errors };
}

/** Submits one task every 250 ms until the API routes the model (not a 503), and returns its id. */
async function waitForRoute(api: HttpPool, key: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const probe = await submitAll(api, key, 1, 1);
    const [id] = probe.ids;
    if (id !== undefined) return id;
    if (Date.now() > deadline || !probe.errors[0]?.startsWith('503')) throw new Error(`the task route never came up: ${probe.errors[0]}`);
    await sleep(250);
  }
}

async function waitForTerminal(
  db: ReturnType<typeof createPool>,
  ids: string[],
  timeoutMs: number,
): Promise<{ succeeded: number; failed: number; lastFinishedMs: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await db.query<{ succeeded: number; failed: number; active: number; last: Date | null }>(
      `SELECT count(*) FILTER (WHERE status = 'succeeded')::int AS succeeded,
              count(*) FILTER (WHERE status IN ('failed', 'cancelled'))::int AS failed,
              count(*) FILTER (WHERE status IN ('queued', 'running'))::int AS active,
              max(finished_at) AS last
         FROM tasks WHERE id = ANY($1)`,
      [ids],
    );
    const row = result.rows[0];
    if (row.active === 0 || Date.now() > deadline)
      return { succeeded: row.succeeded, failed: row.failed, lastFinishedMs: row.last?.getTime() ?? Date.now() };
    await sleep(200);
  }
}

export async function runTaskBenchmark(options: TaskBenchmarkOptions): Promise<TaskBenchmarkRow[]> {
  const count = options.tasks ?? 1_000;
  const env = options.env;
  if (!env.DATABASE_URL || !env.ENCRYPTION_KEY || !env.HMAC_SECRET)
    throw new Error('the task benchmark needs DATABASE_URL, ENCRYPTION_KEY and HMAC_SECRET in env');
  // The benchmark's own throwaway store on loopback, never the production API's.
  const s3 = await startEmbeddedS3({ port: 0, directory: mkdtempSync(path.join(os.tmpdir(), 'gw-bench-s3-')), environment: 'development' });
  const simPort = 5400 + Math.floor(Math.random() * 500);
  const simUrl = `http://127.0.0.1:${simPort}`;
  const workerEnv: NodeJS.ProcessEnv = {
    ...env,
    S3_ENDPOINT: s3.endpoint,
    S3_BUCKET: `bench-tasks-${randomBytes(3).toString('hex')}`,
    WORKER_CONCURRENCY: String(options.workerConcurrency ?? 64),
    TASK_TEST_CONCURRENCY: String(options.workerConcurrency ?? 64),
    LOG_LEVEL: 'warn',
  };
  const sim = startProcess('scripts/provider-sim/main.ts', { ...env, SIM_PORT: String(simPort), SIM_VIDEO_MS: '0', SIM_IMAGE_MS: '0' });
  const workers: ReturnType<typeof startProcess>[] = [];
  const db = createPool(env.DATABASE_URL, 4);
  const api = new HttpPool(options.apiUrl, { connections: options.submitConcurrency ?? 32, pipelining: 1, keepAliveTimeout: 30_000 });
  try {
    await waitFor(`${simUrl}/_sim/requests`);
    // A group of the benchmark account whose video model is served by the zero-latency provider.
    const crypto = createSecretCrypto(Buffer.from(env.ENCRYPTION_KEY, 'hex'), env.HMAC_SECRET);
    const owner = await db.query<{ account_id: number }>('SELECT account_id FROM api_keys WHERE secret_hmac = $1', [
      crypto.hmac(options.key),
    ]);
    const accountId = owner.rows[0]?.account_id;
    if (accountId === undefined) throw new Error('the benchmark key is unknown');
    const group = await createGroup(db, { name: `bench-tasks-${randomBytes(3).toString('hex')}`, family: null });
    await addUpstreamAccount(db, crypto, {
      groupId: group,
      protocol: 'generate-content',
      baseUrl: simUrl,
      apiKey: 'sim-key',
      models: ['veo-3'],
    });
    const key = (await insertApiKey(db, crypto, { accountId, groupId: group, name: 'bench-tasks' })).secret;
    // The running API process sees new upstream accounts at its next directory refresh: the cache
    // lives 5 s and the first request after that is still served from it while it reloads, so a
    // fixed wait is not enough. Submit until the route exists (those tasks count as warm-up).
    const routed = await waitForRoute(api, key, 30_000);

    const script = options.workerScript ?? { path: 'workers/index.ts', args: ['--queues', 'tasks'] };
    for (let i = 0; i < (options.workers ?? 2); i++) workers.push(startProcess(script.path, workerEnv, script.args));
    // Warm up: the workers are up, the pools are open, the JIT has seen the path.
    const warm = await submitAll(api, key, 20, 10);
    if (warm.errors.length > 0) throw new Error(`warm-up submits failed: ${warm.errors[0]}`);
    warm.ids.push(routed);
    const warmed = await waitForTerminal(db, warm.ids, 60_000);
    if (warmed.succeeded !== warm.ids.length) throw new Error(`warm-up tasks did not all succeed (${warmed.succeeded}/${warm.ids.length})`);

    const started = Date.now();
    const run = await submitAll(api, key, count, options.submitConcurrency ?? 32);
    const submitSeconds = (Date.now() - started) / 1000;
    const done = await waitForTerminal(db, run.ids, 300_000);
    const seconds = (done.lastFinishedMs - started) / 1000;
    run.latencies.sort((a, b) => a - b);
    const rows: TaskBenchmarkRow[] = [
      {
        scenario: `tasks: ${count} video tasks, zero provider latency, ${workers.length} workers: tasks/s submit → succeeded`,
        target: 'gateway',
        value: Number((done.succeeded / seconds).toFixed(1)),
        seconds: Number(seconds.toFixed(2)),
        succeeded: done.succeeded,
        failed: done.failed,
        submitErrors: run.errors.length,
      },
      { scenario: 'tasks: submit latency p50 ms', target: 'gateway', value: Number(percentile(run.latencies, 50).toFixed(2)) },
      { scenario: 'tasks: submit latency p99 ms', target: 'gateway', value: Number(percentile(run.latencies, 99).toFixed(2)) },
      { scenario: 'tasks: submits/s', target: 'gateway', value: Math.round(count / submitSeconds) },
    ];
    for (const row of rows) console.log(`${row.scenario}: ${row.value}`);
    if (run.errors.length > 0) console.log(`task submit errors: ${run.errors.length}, first: ${run.errors[0]}`);
    return rows;
  } finally {
    await api.close();
    await Promise.all(workers.map((worker) => stopProcess(worker)));
    await stopProcess(sim);
    await db.end();
    await s3.close().catch(() => undefined);
  }
}

/** Standalone: its own database, simulator and API process, then the benchmark. */
async function main(): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `gw_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  await migrate(databaseUrl);
  const apiPort = 5900 + Math.floor(Math.random() * 500);
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: `gwbench${randomBytes(3).toString('hex')}`,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    HMAC_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    S3_ENDPOINT: 'http://127.0.0.1:1',
  };
  const db = createPool(databaseUrl, 2);
  const crypto = createSecretCrypto(Buffer.from(env.ENCRYPTION_KEY!, 'hex'), env.HMAC_SECRET!);
  const boot = await bootstrap(db, crypto, new Catalog(DEFAULT_CATALOG), { simulatorUrl: 'http://127.0.0.1:1', simulatorKey: 'sim-key' });
  await topUp(db, boot.accountId!, 1_000_000_000_000, 'bench');
  await db.query("UPDATE accounts SET tier = 'enterprise', concurrency_cap = 5000 WHERE id = $1", [boot.accountId]);
  await db.end();
  const api = startProcess('src/server.ts', env);
  try {
    await waitFor(`http://127.0.0.1:${apiPort}/readyz`);
    await runTaskBenchmark({
      env,
      apiUrl: `http://127.0.0.1:${apiPort}`,
      key: boot.key!,
      simUrl: 'http://127.0.0.1:1',
      tasks: Number(process.env.BENCH_TASKS ?? 1_000),
    });
  } finally {
    await stopProcess(api);
    const cleanup = new Client({ connectionString: adminUrl });
    await cleanup.connect();
    await cleanup.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await cleanup.end();
  }
}

if (require.main === module) {
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error('task benchmark failed:', error);
      process.exit(1);
    },
  );
}
