/**
 * `npm run bench`: the simulator (zero latency), a bare pass-through proxy (the floor), one API
 * process and one billing worker as separate processes; measured side by side in one run: direct to
 * the simulator, through the bare proxy, and through the gateway (authentication, admission,
 * translation and billing all on), pass-through and translated. Writes bench-results/latest.json
 * and latest.md, with the API's time and CPU per request by phase (issue 24) and the CPU of every process of the stack. `BENCH_PORT_BASE=P` puts the processes on P+1 … P+6 (else random ports; the affinity part starts two APIs at P+5 and P+6).
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createSecretCrypto } from '../../src/auth/secret-crypto';
import { Catalog } from '../../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import { bootstrap } from '../../src/process/bootstrap';
import { migrate } from '../../src/db/migrate';
import { createPool } from '../../src/db/pool';
import { addUpstreamAccount, createGroup, topUp } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { createRedis } from '../../src/redis/connection';
import { createBillingBacklog } from './billing-backlog';
import { openHeapProbe } from './heap-probe';
import { closedLoop, paced, timeToFirstByte, type LoadRequest, type LoadResult } from './load';
import { cpuTimes, ROOT, startProcess, stopProcess, waitFor } from './processes';
import { breakdownMarkdown, readBreakdown, resetTrace, type Breakdown } from './breakdown';
import { openStackCpu, stackDelta } from './stack-cpu';

/** `BENCH_QUICK=1`: a smoke run, 2 s per run and only the throughput and streaming scenarios (unless BENCH_SECONDS / BENCH_ONLY say otherwise). */
const QUICK = process.env.BENCH_QUICK === '1';
const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 2 : 5));
const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** `BENCH_CPU_PROFILE=1`: the API process writes a V8 CPU profile into bench-results/ when it stops. */
const CPU_PROFILE = process.env.BENCH_CPU_PROFILE === '1';
/** `BENCH_ONLY=idle,throughput,streaming,paced,ttfb,heap,tasks,affinity` (any subset) runs only those parts; all by default. */
const ONLY = new Set(
  (process.env.BENCH_ONLY ?? (QUICK ? 'throughput,streaming' : ''))
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean),
);
const runs = (part: string) => ONLY.size === 0 || ONLY.has(part);
/** `BENCH_GATEWAY_ONLY=1`: skip the direct and bare-proxy baselines (for a CPU profile of the gateway alone; no percentages). */
const GATEWAY_ONLY = process.env.BENCH_GATEWAY_ONLY === '1';
const SKIPPED: LoadResult = { requests: 0, errors: 0, seconds: 0, rps: 0, p50Ms: 0, p99Ms: 0 };
/** `BENCH_API_NODE_ARGS='--max-semi-space-size=64'`: extra node flags for the API process (experiments). */
const API_NODE_ARGS = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** `BENCH_TRACE_SAMPLE=N`: the API traces one request in N by phase (issue 24) for the breakdown; 0 = off. */
const TRACE_SAMPLE = process.env.BENCH_TRACE_SAMPLE ?? '10';

interface Row {
  scenario: string;
  target: string;
  [metric: string]: string | number;
}

async function freshDatabase(): Promise<string> {
  const name = `gw_bench_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

async function dropDatabase(url: string): Promise<void> {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS "${new URL(url).pathname.slice(1)}" WITH (FORCE)`);
  await admin.end();
}

function chatBody(model: string, text: string, stream: boolean): string {
  return JSON.stringify({
    model,
    messages: [{ role: 'user', content: text }],
    max_tokens: 1024,
    stream,
    ...(stream ? { stream_options: { include_usage: true } } : {}),
  });
}

async function main(): Promise<void> {
  const databaseUrl = await freshDatabase();
  await migrate(databaseUrl);
  const portBase = process.env.BENCH_PORT_BASE ? Number(process.env.BENCH_PORT_BASE) : undefined;
  const simPort = portBase !== undefined ? portBase + 1 : 4300 + Math.floor(Math.random() * 500);
  const apiPort = portBase !== undefined ? portBase + 2 : 4900 + Math.floor(Math.random() * 500);
  const proxyPort = portBase !== undefined ? portBase + 3 : 5500 + Math.floor(Math.random() * 400);
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
    SIM_PORT: String(simPort),
    SIM_TTFT_MS: '0',
    SIM_CHUNK_DELAY_MS: '0',
    S3_ENDPOINT: 'http://127.0.0.1:1',
    STREAM_KEEPALIVE_MS: '15000',
    GATEWAY_TRACE_SAMPLE: TRACE_SAMPLE,
  };
  const simUrl = `http://127.0.0.1:${simPort}`;
  const apiUrl = `http://127.0.0.1:${apiPort}`;
  const proxyUrl = `http://127.0.0.1:${proxyPort}`;
  const sim = startProcess('scripts/provider-sim/main.ts', env);
  const proxy = startProcess('scripts/bench/bare-proxy.ts', { ...env, BARE_PROXY_PORT: String(proxyPort), BARE_PROXY_UPSTREAM: simUrl });
  const started: ChildProcess[] = [sim, proxy];
  // Also run when the benchmark fails half-way: no process, database or Redis key outlives it.
  cleanUp = async () => {
    for (const child of started.reverse()) await stopProcess(child, CPU_PROFILE ? 30_000 : 5_000);
    await dropDatabase(databaseUrl).catch(() => undefined);
    await deleteRedisPrefix(env.REDIS_URL, env.REDIS_PREFIX!).catch(() => undefined);
  };
  await waitFor(`${simUrl}/_sim/requests`);
  await waitFor(`${proxyUrl}/_sim/requests`);
  await fetch(`${simUrl}/_sim/requests`, { method: 'DELETE' });

  const db = createPool(databaseUrl, 2);
  const crypto = createSecretCrypto(Buffer.from(env.ENCRYPTION_KEY!, 'hex'), env.HMAC_SECRET!);
  const boot = await bootstrap(db, crypto, new Catalog(DEFAULT_CATALOG), { simulatorUrl: simUrl, simulatorKey: 'sim-key' });
  await topUp(db, boot.accountId!, 1_000_000_000_000, 'bench');
  await db.query("UPDATE accounts SET tier = 'enterprise', concurrency_cap = 5000 WHERE id = $1", [boot.accountId]);
  // A group whose upstream streams slowly, to hold 1,000 streams open at once.
  const slowGroup = await createGroup(db, { name: 'bench-slow', family: null });
  await addUpstreamAccount(db, crypto, {
    groupId: slowGroup,
    protocol: 'chat',
    baseUrl: `${simUrl}/_latency/0/1000`,
    apiKey: 'sim-key',
    models: ['gpt-4.1'],
  });
  const slowKey = (await insertApiKey(db, crypto, { accountId: boot.accountId!, groupId: slowGroup, name: 'bench-slow' })).secret;
  await db.end();
  const key = boot.key!;

  const resultsDir = path.join(ROOT, 'bench-results');
  mkdirSync(resultsDir, { recursive: true });
  // The inspector stays closed until the heap measurement opens it (SIGUSR1) on this port.
  const inspectPort = portBase !== undefined ? portBase + 4 : 9300 + Math.floor(Math.random() * 500);
  const api = startProcess(
    'src/server.ts',
    env,
    [],
    [`--inspect-port=127.0.0.1:${inspectPort}`, ...(CPU_PROFILE ? ['--cpu-prof', '--cpu-prof-dir', resultsDir] : []), ...API_NODE_ARGS],
  );
  started.push(api);
  const worker = startProcess('workers/index.ts', env, ['--queues', 'billing']);
  started.push(worker);
  await waitFor(`${apiUrl}/readyz`);
  const billingBacklog = createBillingBacklog(env);
  const stackCpu = await openStackCpu({
    redisUrl: env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    adminUrl: ADMIN_URL,
    databaseName: new URL(databaseUrl).pathname.slice(1),
    apiPid: api.pid!,
    workerPid: worker.pid!,
  });
  const breakdowns: Breakdown[] = [];

  const gatewayHeaders = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const directHeaders = { 'content-type': 'application/json', authorization: 'Bearer sim-key' };
  const rows: Row[] = [];
  let idle: { apiCpuMicrosPerSecond: number; workerCpuMicrosPerSecond: number } | undefined;
  type Target = 'direct' | 'proxy' | 'gateway';
  const measure = async (
    scenario: string,
    request: (target: Target) => LoadRequest,
    run: (origin: string, req: LoadRequest) => Promise<LoadResult>,
  ) => {
    // The billing worker shares the machine: let it finish the previous run's usage events first,
    // or they compete with this run (and with the baselines).
    await billingBacklog.drain();
    const direct = GATEWAY_ONLY ? SKIPPED : await run(simUrl, request('direct'));
    const proxyBefore = cpuTimes(proxy.pid!);
    const bare = GATEWAY_ONLY ? SKIPPED : await run(proxyUrl, request('proxy'));
    const proxyAfter = cpuTimes(proxy.pid!);
    const bareCpuPerRequest = Math.round(
      (proxyAfter.user + proxyAfter.system - proxyBefore.user - proxyBefore.system) / Math.max(1, bare.requests),
    );
    await resetTrace(apiUrl);
    const stackBefore = await stackCpu.snapshot();
    const cpuBefore = cpuTimes(api.pid!);
    const workerBefore = cpuTimes(worker.pid!);
    const gateway = await run(apiUrl, request('gateway'));
    const cpuAfter = cpuTimes(api.pid!);
    const breakdown = await readBreakdown(apiUrl, scenario);
    if (breakdown) breakdowns.push(breakdown);
    const perRequest = (micros: number) => Math.round(micros / Math.max(1, gateway.requests));
    const systemPerRequest = perRequest(cpuAfter.system - cpuBefore.system);
    const cpuPerRequest = perRequest(cpuAfter.user - cpuBefore.user) + systemPerRequest;
    // The worker's share: its CPU from the run's start until it has settled the run's events.
    const drainedAfterSeconds = await billingBacklog.drain();
    const workerAfter = cpuTimes(worker.pid!);
    const workerCpuPerRequest = perRequest(workerAfter.user + workerAfter.system - workerBefore.user - workerBefore.system);
    // Every process of the stack, from the run's start until the worker has settled its events.
    const stack = stackDelta(stackBefore, await stackCpu.snapshot());
    const redisCpuPerRequest = stack.redis === undefined ? '' : perRequest(stack.redis);
    const postgresCpuPerRequest = perRequest(stack.postgres);
    const stackCpuPerRequest = perRequest(stack.api + stack.worker + (stack.redis ?? 0) + stack.postgres);
    const ofBare = Math.round((100 * gateway.rps) / Math.max(1, bare.rps));
    rows.push({ scenario, target: 'direct', ...direct });
    rows.push({
      scenario,
      target: 'bare proxy',
      ...bare,
      proxyCpuMicrosPerRequest: bareCpuPerRequest,
      overheadP50Ms: Number((bare.p50Ms - direct.p50Ms).toFixed(2)),
      overheadP99Ms: Number((bare.p99Ms - direct.p99Ms).toFixed(2)),
    });
    rows.push({
      scenario,
      target: 'gateway',
      ...gateway,
      ofBareProxyPercent: ofBare,
      apiCpuMicrosPerRequest: cpuPerRequest,
      apiKernelMicrosPerRequest: systemPerRequest,
      workerCpuMicrosPerRequest: workerCpuPerRequest,
      billingDrainedAfterSeconds: drainedAfterSeconds,
      redisCpuMicrosPerRequest: redisCpuPerRequest,
      postgresCpuMicrosPerRequest: postgresCpuPerRequest,
      stackCpuMicrosPerRequest: stackCpuPerRequest,
      overheadP50Ms: Number((gateway.p50Ms - direct.p50Ms).toFixed(2)),
      overheadP99Ms: Number((gateway.p99Ms - direct.p99Ms).toFixed(2)),
    });
    console.log(
      `${scenario}: direct ${direct.rps} rps p50 ${direct.p50Ms} ms; bare proxy ${bare.rps} rps (${bareCpuPerRequest} µs CPU/request); gateway ${gateway.rps} rps (${ofBare} % of the bare proxy) p50 ${gateway.p50Ms} ms p99 ${gateway.p99Ms} ms, ${cpuPerRequest} µs CPU/request (${systemPerRequest} in the kernel), errors ${gateway.errors}; billing worker ${workerCpuPerRequest} µs CPU/request, drained ${drainedAfterSeconds} s after the run; Redis ${redisCpuPerRequest} µs, PostgreSQL ${postgresCpuPerRequest} µs, whole stack ${stackCpuPerRequest} µs CPU/request`,
    );
  };
  const chat =
    (text: string, stream: boolean) =>
    (target: Target): LoadRequest => ({
      path: '/v1/chat/completions',
      headers: target === 'gateway' ? gatewayHeaders : directHeaders,
      body: chatBody('gpt-4.1', text, stream),
    });
  /** Translated: the gateway is called in Messages for the Chat model; the baselines make the upstream's own call. */
  const translated =
    (text: string, stream: boolean) =>
    (target: Target): LoadRequest =>
      target === 'gateway'
        ? {
            path: '/v1/messages',
            headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
            body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 1024, stream, messages: [{ role: 'user', content: text }] }),
          }
        : chat(text, stream)(target);

  // Warm up both paths (JIT, pools, caches).
  await closedLoop(apiUrl, chat('warm up', false)('gateway'), 16, 2);
  await closedLoop(simUrl, chat('warm up', false)('direct'), 16, 1);

  // At rest: what the API and the worker burn with no request at all (timers, polls, refreshes);
  // one request at a time carries this share of it per request too.
  if (runs('idle')) {
    await billingBacklog.drain();
    const apiBefore = cpuTimes(api.pid!);
    const workerBefore = cpuTimes(worker.pid!);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const apiAfter = cpuTimes(api.pid!);
    const workerAfter = cpuTimes(worker.pid!);
    const perSecond = (a: { user: number; system: number }, b: { user: number; system: number }) =>
      Math.round((b.user + b.system - a.user - a.system) / 3);
    idle = { apiCpuMicrosPerSecond: perSecond(apiBefore, apiAfter), workerCpuMicrosPerSecond: perSecond(workerBefore, workerAfter) };
    console.log(
      `at rest: API ${idle.apiCpuMicrosPerSecond} µs CPU per second, billing worker ${idle.workerCpuMicrosPerSecond} µs per second`,
    );
  }

  if (runs('throughput')) {
    await measure('non-streaming, pass-through, 32 connections', chat('Hello, benchmark', false), (o, r) => closedLoop(o, r, 32, SECONDS));
    await measure('non-streaming, translated, 32 connections', translated('Hello, benchmark', false), (o, r) =>
      closedLoop(o, r, 32, SECONDS),
    );
    await measure('non-streaming, pass-through, 128 connections', chat('Hello, benchmark', false), (o, r) =>
      closedLoop(o, r, 128, SECONDS),
    );
    await measure('one at a time, pass-through', chat('Hello, benchmark', false), (o, r) => closedLoop(o, r, 1, SECONDS));
    await measure('one at a time, translated', translated('Hello, benchmark', false), (o, r) => closedLoop(o, r, 1, SECONDS));
  }
  if (runs('streaming')) {
    await measure('streaming 100 chunks, pass-through, 32 connections', chat('repeat:50:two words ', true), (o, r) =>
      closedLoop(o, r, 32, SECONDS),
    );
    await measure('streaming 100 chunks, translated, 32 connections', translated('repeat:50:two words ', true), (o, r) =>
      closedLoop(o, r, 32, SECONDS),
    );
  }
  if (runs('paced')) await measure('paced 500 requests/s, non-streaming', chat('Hello, paced', false), (o, r) => paced(o, r, 500, SECONDS));

  // Time to first byte at one connection: pass-through (chat → chat model) and translated (messages → chat model).
  const ttfb: Row[] = [];
  const messagesBody = JSON.stringify({
    model: 'gpt-4.1',
    max_tokens: 256,
    stream: true,
    messages: [{ role: 'user', content: 'repeat:20:first byte ' }],
  });
  const ttfbCases: Array<[string, LoadRequest, LoadRequest]> = [
    ['pass-through (Chat → Chat model)', chat('repeat:20:first byte ', true)('direct'), chat('repeat:20:first byte ', true)('gateway')],
    [
      'translated (Messages → Chat model)',
      chat('repeat:20:first byte ', true)('direct'),
      {
        path: '/v1/messages',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: messagesBody,
      },
    ],
  ];
  for (const [name, direct, gateway] of runs('ttfb') ? ttfbCases : []) {
    const d = await timeToFirstByte(simUrl, direct, 300);
    const g = await timeToFirstByte(apiUrl, gateway, 300);
    ttfb.push({
      scenario: `TTFB ${name}`,
      target: 'gateway',
      directP50Ms: d.p50Ms,
      gatewayP50Ms: g.p50Ms,
      overheadP50Ms: Number((g.p50Ms - d.p50Ms).toFixed(3)),
      gatewayP99Ms: g.p99Ms,
    });
    console.log(`TTFB ${name}: direct p50 ${d.p50Ms} ms, gateway p50 ${g.p50Ms} ms`);
  }

  // Heap per open stream: 1,000 concurrent streams held open by a slow upstream, the API's heap read
  // after a full collection before and while they are open (through its inspector, opened now).
  const open = runs('heap') ? 1000 : 0;
  let firstBytes = 0;
  let heapPerStreamKb = 0;
  if (open > 0) {
    const probe = await openHeapProbe(api.pid!, inspectPort);
    const heapBefore = await probe.heapUsedAfterGc();
    const controller = new AbortController();
    setMaxListeners(0, controller.signal);
    const streams = Array.from({ length: open }, () =>
      fetch(`${apiUrl}/v1/chat/completions`, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'content-type': 'application/json', authorization: `Bearer ${slowKey}` },
        body: chatBody('gpt-4.1', 'repeat:30:held open ', true),
      })
        .then(async (response) => {
          const reader = response.body!.getReader();
          await reader.read();
          firstBytes++;
          await reader.read().catch(() => undefined);
        })
        .catch(() => undefined),
    );
    const deadline = Date.now() + 30_000;
    while (firstBytes < open && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const heapOpen = await probe.heapUsedAfterGc();
    probe.close();
    controller.abort();
    await Promise.allSettled(streams);
    heapPerStreamKb = Number(((heapOpen - heapBefore) / Math.max(1, firstBytes) / 1024).toFixed(1));
    console.log(
      `heap: ${firstBytes} open streams, ${heapPerStreamKb} KB per stream (${(heapBefore / 2 ** 20).toFixed(1)} MiB after GC before, ${(heapOpen / 2 ** 20).toFixed(1)} MiB with them open)`,
    );
  }

  let taskRows: Row[] = [];
  try {
    const tasks = require('./tasks') as {
      runTaskBenchmark?: (options: { env: NodeJS.ProcessEnv; apiUrl: string; key: string; simUrl: string }) => Promise<Row[]>;
    };
    if (tasks.runTaskBenchmark && runs('tasks')) taskRows = await tasks.runTaskBenchmark({ env, apiUrl, key, simUrl });
  } catch (error) {
    console.log(`task benchmark not run: ${(error as Error).message}`);
  }

  if (runs('affinity')) await (await import('./session-affinity')).runAffinityBenchmark({ env, apiUrl, simUrl }); // issue 17: prompt-cache affinity on/off

  await billingBacklog.drain();
  await billingBacklog.close();
  await stackCpu.close();
  await cleanUp();

  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  const result = {
    date: new Date().toISOString(),
    machine,
    seconds: SECONDS,
    throughput: rows,
    ttfb,
    heap: { openStreams: firstBytes, heapPerStreamKb },
    idle,
    tasks: taskRows,
    traceSample: Number(TRACE_SAMPLE),
    breakdowns,
  };
  const outDir = resultsDir;
  writeFileSync(path.join(outDir, 'latest.json'), JSON.stringify(result, null, 2));
  const md = [
    `Benchmark of ${result.date.slice(0, 10)} on ${machine} (${SECONDS} s per run; load generator, simulator, API and worker share the machine).`,
    '',
    '| Scenario | Target | req/s | % of bare proxy | p50 ms | p99 ms | API (or bare proxy) CPU µs/req | worker CPU µs/req | Redis CPU µs/req | PostgreSQL CPU µs/req | stack CPU µs/req | overhead p50 ms | overhead p99 ms | errors |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.scenario} | ${r.target} | ${r.rps} | ${r.ofBareProxyPercent ?? ''} | ${r.p50Ms} | ${r.p99Ms} | ${r.apiCpuMicrosPerRequest ?? r.proxyCpuMicrosPerRequest ?? ''} | ${r.workerCpuMicrosPerRequest ?? ''} | ${r.redisCpuMicrosPerRequest ?? ''} | ${r.postgresCpuMicrosPerRequest ?? ''} | ${r.stackCpuMicrosPerRequest ?? ''} | ${r.overheadP50Ms ?? ''} | ${r.overheadP99Ms ?? ''} | ${r.errors} |`,
    ),
    '',
    "Stack CPU = API + billing worker + Redis + the PostgreSQL backends of the bench database, from the run's start until the worker has settled its events; Redis and PostgreSQL are shared with anything else running on the machine.",
    '',
    '| Time to first byte (1 connection) | direct p50 ms | gateway p50 ms | overhead p50 ms | gateway p99 ms |',
    '|---|---|---|---|---|',
    ...ttfb.map(
      (r) => `| ${r.scenario.replace('TTFB ', '')} | ${r.directP50Ms} | ${r.gatewayP50Ms} | ${r.overheadP50Ms} | ${r.gatewayP99Ms} |`,
    ),
    '',
    `Heap: ${firstBytes} concurrent open streams, ${heapPerStreamKb} KB of API heap per stream.`,
    ...(idle
      ? [
          '',
          `At rest: API ${idle.apiCpuMicrosPerSecond} µs of CPU per second, billing worker ${idle.workerCpuMicrosPerSecond} µs per second.`,
        ]
      : []),
    ...(breakdowns.length
      ? [
          '',
          `Where one request's time goes on the API (1 request in ${TRACE_SAMPLE} traced; CPU is the whole API process's, so it is exact one request at a time and includes the other requests' work at 32 connections):`,
          ...breakdownMarkdown(breakdowns),
        ]
      : []),
    ...(taskRows.length
      ? ['', '| Tasks | value |', '|---|---|', ...taskRows.map((r) => `| ${r.scenario} | ${r.value ?? JSON.stringify(r)} |`)]
      : []),
  ].join('\n');
  writeFileSync(path.join(outDir, 'latest.md'), `${md}\n`);
  console.log(`\n${md}`);
  process.exit(0);
}

let cleanUp: () => Promise<void> = async () => undefined;

/** Every key of the run's prefix (usage jobs, counters): a run otherwise leaves tens of thousands behind. */
async function deleteRedisPrefix(url: string | undefined, prefix: string): Promise<void> {
  const redis = createRedis(url ?? 'redis://127.0.0.1:6379', { name: 'bench-cleanup' });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

main().catch(async (error: unknown) => {
  console.error('benchmark failed:', error);
  await cleanUp().catch(() => undefined);
  process.exit(1);
});
