/**
 * `npm run build && node dist/scripts/bench/request-log-cpu.js`: what the request log (issue 22)
 * costs the API process in CPU per request. Two API processes side by side on the same database,
 * Redis and simulator: one with `REQUEST_LOG_ENABLED=false`, one with it on; a billing worker (which
 * also writes the request log). Runs alternate between them (rounds of: log off / on with small
 * bodies; log off / on with bodies kept, 4 KB requests) so machine noise hits both alike, and the
 * medians (and the minimums, steadier on a busy machine) are compared. `REQUEST_LOG_BENCH_SECONDS`
 * (default 4) per run, `REQUEST_LOG_BENCH_ROUNDS` (default 3); `REQUEST_LOG_BENCH_PAIRED=1` loads
 * both processes at the same time instead of in turn (on a shared machine, both then see the same noise).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createSecretCrypto } from '../../src/auth/secret-crypto';
import { Catalog } from '../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import { migrate } from '../../src/db/migrate';
import { createPool } from '../../src/db/pool';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { bootstrap } from '../../src/process/bootstrap';
import { findGroupId, topUp } from '../../src/process/seed';
import { closedLoop, type LoadRequest } from './load';
import { cpuTimes, startProcess, stopProcess, waitFor } from './processes';

const SECONDS = Number(process.env.REQUEST_LOG_BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.REQUEST_LOG_BENCH_ROUNDS ?? 3);
const CONNECTIONS = 8;
/** Log off and log on loaded at the same time (each its own connections): both see the same machine noise. */
const PAIRED = process.env.REQUEST_LOG_BENCH_PAIRED === '1';
/** Writes a V8 CPU profile of the log-on process to bench-results/ (summarize it with summarize-profile.ts). */
const PROFILE = process.env.REQUEST_LOG_BENCH_PROFILE === '1';
const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

const freePort = () => 20_000 + Math.floor(Math.random() * 20_000);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  const name = `gw_reqlog_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  await migrate(databaseUrl);
  const [simPort, offPort, onPort] = [freePort(), freePort(), freePort()];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    REDIS_PREFIX: `gwreqlog${randomBytes(3).toString('hex')}`,
    ENCRYPTION_KEY: randomBytes(32).toString('hex'),
    HMAC_SECRET: randomBytes(32).toString('hex'),
    LOG_LEVEL: 'warn',
    HOST: '127.0.0.1',
    SIM_PORT: String(simPort),
    SIM_TTFT_MS: '0',
    SIM_CHUNK_DELAY_MS: '0',
    S3_ENDPOINT: 'http://127.0.0.1:1',
  };
  const started: ChildProcess[] = [];
  try {
    started.push(startProcess('scripts/provider-sim/main.ts', env));
    const simUrl = `http://127.0.0.1:${simPort}`;
    await waitFor(`${simUrl}/_sim/requests`);
    const db = createPool(databaseUrl, 2);
    const crypto = createSecretCrypto(Buffer.from(env.ENCRYPTION_KEY!, 'hex'), env.HMAC_SECRET!);
    const boot = await bootstrap(db, crypto, new Catalog(DEFAULT_CATALOG), { simulatorUrl: simUrl, simulatorKey: 'sim-key' });
    await topUp(db, boot.accountId!, 1_000_000_000_000, 'bench');
    await db.query("UPDATE accounts SET tier = 'enterprise', concurrency_cap = 5000, request_bodies_allowed = true WHERE id = $1", [
      boot.accountId,
    ]);
    const groupId = (await findGroupId(db, 'default'))!;
    const bodiesKey = await insertApiKey(db, crypto, { accountId: boot.accountId!, groupId, name: 'bench-bodies' });
    await db.query('UPDATE api_keys SET keep_request_bodies = true WHERE id = $1', [bodiesKey.id]);
    await db.end();

    const off = startProcess('src/server.ts', { ...env, PORT: String(offPort), REQUEST_LOG_ENABLED: 'false' });
    const on = startProcess(
      'src/server.ts',
      { ...env, PORT: String(onPort), REQUEST_LOG_ENABLED: 'true' },
      [],
      PROFILE ? ['--cpu-prof', '--cpu-prof-dir', 'bench-results'] : [],
    );
    started.push(off, on, startProcess('workers/index.ts', env, ['--queues', 'billing']));
    const offUrl = `http://127.0.0.1:${offPort}`;
    const onUrl = `http://127.0.0.1:${onPort}`;
    await waitFor(`${offUrl}/readyz`);
    await waitFor(`${onUrl}/readyz`);

    const request = (key: string, text: string): LoadRequest => ({
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 64, messages: [{ role: 'user', content: text }] }),
    });
    const small = request(boot.key!, 'Hello');
    const fourKb = 'lorem ipsum '.repeat(342);
    const measure = async (url: string, pid: number, load: LoadRequest) => {
      const before = cpuTimes(pid);
      const result = await closedLoop(url, load, CONNECTIONS, SECONDS);
      const after = cpuTimes(pid);
      return {
        cpu: (after.user + after.system - before.user - before.system) / Math.max(1, result.requests),
        rps: result.rps,
        errors: result.errors,
      };
    };
    for (const [url, load] of [
      [offUrl, small],
      [onUrl, small],
      [onUrl, request(bodiesKey.secret, fourKb)],
    ] as const)
      await closedLoop(url, load, CONNECTIONS, 2);

    const pair = async (offLoad: LoadRequest, onLoad: LoadRequest): Promise<[number, number]> => {
      if (PAIRED) {
        const [offRun, onRun] = await Promise.all([measure(offUrl, off.pid!, offLoad), measure(onUrl, on.pid!, onLoad)]);
        return [offRun.cpu, onRun.cpu];
      }
      return [(await measure(offUrl, off.pid!, offLoad)).cpu, (await measure(onUrl, on.pid!, onLoad)).cpu];
    };
    const runs: Record<string, number[]> = { offSmall: [], onSmall: [], off4k: [], bodies4k: [] };
    for (let round = 0; round < ROUNDS; round += 1) {
      const [offSmall, onSmall] = await pair(small, small);
      const [off4k, bodies4k] = await pair(request(boot.key!, fourKb), request(bodiesKey.secret, fourKb));
      runs.offSmall!.push(offSmall);
      runs.onSmall!.push(onSmall);
      runs.off4k!.push(off4k);
      runs.bodies4k!.push(bodies4k);
      console.log(
        `round ${round + 1}: ${Object.entries(runs)
          .map(([k, v]) => `${k} ${Math.round(v[round]!)} µs`)
          .join(', ')}`,
      );
    }
    const m = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, Math.round(median(v))])) as Record<keyof typeof runs, number>;
    // On a busy machine the least disturbed round of each is the steadier figure (noise only ever adds CPU).
    const low = Object.fromEntries(Object.entries(runs).map(([k, v]) => [k, Math.round(Math.min(...v))])) as Record<
      keyof typeof runs,
      number
    >;
    const pct = (a: number, b: number) => (((b - a) / a) * 100).toFixed(1);
    console.log(
      JSON.stringify({
        medianApiCpuMicrosPerRequest: m,
        logOnPercent: pct(m.offSmall, m.onSmall),
        bodies4kPercent: pct(m.off4k, m.bodies4k),
      }),
    );
    console.log(
      JSON.stringify({
        minimumApiCpuMicrosPerRequest: low,
        logOnPercent: pct(low.offSmall, low.onSmall),
        bodies4kPercent: pct(low.off4k, low.bodies4k),
      }),
    );
  } finally {
    for (const child of started.reverse()) await stopProcess(child);
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    await admin.end();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error('request log benchmark failed:', error);
    process.exit(1);
  },
);
