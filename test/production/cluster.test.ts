/**
 * Scale-out, proven: two API processes and two workers, all plain `node` from `dist/`, behind a real
 * load balancer (haproxy, round robin), sharing one PostgreSQL and one Redis. Shown here: billing
 * exact over mixed load; a rolling restart of both APIs and a worker under load that loses and
 * double-bills nothing; a deleted and a rotated key refused by both instances within 1 s; one
 * account's concurrency cap shared across instances; task events reaching an SSE client connected
 * to the instance that did not take the submission.
 */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { bootstrap } from '../../src/process/bootstrap';
import { addUpstreamAccount, createAccount, createGroup, topUp } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { eventually, readTotals } from '../integration/billing/billing-fixtures';
import { createTrafficKeys, planCalls, runTraffic, type CallResult, type TrafficKeys } from '../integration/billing/gateway-traffic';
import { readTaskStream } from '../integration/tasks/task-harness';
import { createTestDependencies, type TestDependencies } from '../support/dependencies';
import { ensureBuilt, freePort, startDistApi, startDistWorker, type DistApi, type DistProcess } from './dist-processes';
import { startHaproxy, type LoadBalancer } from './haproxy';

jest.setTimeout(240_000);

const STARTING_BALANCE = 100_000_000;

let sim: Simulator;
let deps: TestDependencies;
let env: Record<string, string>;
let accountId: number;
let key: string;
let traffic: TrafficKeys;
const apis: DistApi[] = [];
const workers: DistProcess[] = [];
let lb: LoadBalancer;
let cappedKey: string;

beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ port: 0, videoMs: 300 });
  deps = await createTestDependencies({ s3: true, env: { UPSTREAM_COOLDOWN_MS: '60000', SHUTDOWN_GRACE_MS: '20000' } });
  env = deps.env;
  const boot = await bootstrap(deps.db, deps.crypto, deps.catalog, { simulatorUrl: sim.url, simulatorKey: 'sim-key' });
  accountId = boot.accountId!;
  key = boot.key!;
  await deps.db.query('UPDATE accounts SET concurrency_cap = 500 WHERE id = $1', [accountId]);
  traffic = await createTrafficKeys({ deps, sim, accountId, key });
  cappedKey = await createCappedKey();
  const ports = [await freePort(), await freePort()];
  apis.push(...(await Promise.all(ports.map((port) => startDistApi(env, port)))));
  workers.push(...(await Promise.all([startDistWorker(env), startDistWorker(env)])));
  lb = await startHaproxy(ports);
});

afterAll(async () => {
  await lb?.close();
  await Promise.all([...apis, ...workers].map((p) => p.stop('SIGKILL')));
  await sim?.close();
  await deps?.close();
});

/** An account allowed two requests at once, whose key routes to a slow upstream (created before the APIs start: they cache routing). */
async function createCappedKey(): Promise<string> {
  const capped = await createAccount(deps.db, { name: 'capped', tier: 'pro', concurrencyCap: 2 });
  await topUp(deps.db, capped, 10_000_000);
  const group = await createGroup(deps.db, { name: 'capped-slow', family: null });
  await addUpstreamAccount(deps.db, deps.crypto, {
    groupId: group,
    name: 'slow chat',
    protocol: 'chat',
    baseUrl: `${sim.url}/_latency/0/100`,
    apiKey: 'sim-key',
    models: ['*'],
  });
  return (await insertApiKey(deps.db, deps.crypto, { accountId: capped, groupId: group, name: 'capped' })).secret;
}

async function usageRows(): Promise<Map<string, { credits: number; status: string; n: number }>> {
  const rows = await deps.db.query<{ request_id: string; credits: number; status: string; n: number }>(
    'SELECT request_id, max(credits)::int AS credits, max(status) AS status, count(*)::int AS n FROM usage_rows WHERE account_id = $1 GROUP BY request_id',
    [accountId],
  );
  return new Map(rows.rows.map((row) => [row.request_id, row]));
}

/** Every billable call has exactly one row at the expected cost, nothing else has one, and the wallet moved by the rows. */
async function expectExact(results: readonly CallResult[]): Promise<void> {
  const billable = results.filter((r) => r.kind === 'ok' || r.kind === 'failover' || r.kind === 'abort');
  await eventually(
    'every billable call to be written',
    async () => (await usageRows()).size,
    (n) => n >= billable.length,
    60_000,
  );
  const rows = await usageRows();
  expect(rows.size).toBe(billable.length);
  for (const result of results) {
    const row = result.requestId === null ? undefined : rows.get(result.requestId);
    const what = `${result.kind} ${result.protocol} ${result.model} stream=${String(result.stream)} #${result.index}`;
    if (result.kind === 'ok' || result.kind === 'failover') {
      expect([what, result.status, row?.credits, row?.n]).toEqual([what, 200, result.expectedCredits, 1]);
    } else if (result.kind === 'abort') {
      expect([what, row?.status, row?.n]).toEqual([what, 'aborted', 1]);
    } else {
      expect([what, row]).toEqual([what, undefined]);
    }
  }
  const totals = await readTotals(deps.db, accountId);
  expect(totals.rows).toBe(billable.length);
  expect(STARTING_BALANCE - totals.balance).toBe(totals.rowCredits);
}

it('bills exactly over mixed load spread by the load balancer over both instances', async () => {
  const results = await runTraffic({ url: lb.url, deps }, traffic, planCalls(240), 24);
  await expectExact(results);
  for (const api of apis) {
    const metrics = await (await fetch(`${api.url}/metrics`)).text();
    expect(metrics).toMatch(/gateway_http_requests_total\{[^}]*route="(chat|messages|responses|generate-content)"/);
  }
});

it('loses and double-bills nothing while both APIs and a worker restart one after the other under load', async () => {
  const before = await readTotals(deps.db, accountId);
  let stop = false;
  const results: Array<{ status: number; requestId: string | null; streamed: boolean }> = [];
  const lane = async (lane: number) => {
    for (let i = 0; !stop; i++) {
      const stream = (i + lane) % 2 === 0;
      const response = await fetch(`${lb.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${traffic.slow}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'gpt-4.1',
          stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
          messages: [{ role: 'user', content: `repeat:4:rolling ${lane} ${i} ` }],
        }),
      });
      const body = await response.text();
      results.push({
        status: response.status,
        requestId: response.headers.get('x-request-id'),
        streamed: stream && body.includes('[DONE]'),
      });
    }
  };
  const lanes = Promise.all(Array.from({ length: 8 }, (_, i) => lane(i)));
  const restart = async (index: number) => {
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await apis[index]!.stop('SIGTERM')).toBe(0);
    apis[index] = await startDistApi(env, apis[index]!.port);
  };
  await restart(0);
  await restart(1);
  expect(await workers[0]!.stop('SIGTERM')).toBe(0);
  workers[0] = await startDistWorker(env);
  await new Promise((resolve) => setTimeout(resolve, 500));
  stop = true;
  await lanes;

  expect(results.length).toBeGreaterThan(40);
  expect(results.filter((r) => r.status !== 200)).toEqual([]);
  const rows = await eventually(
    'every answered call to be billed',
    async () => {
      const all = await usageRows();
      return results.map((r) => all.get(r.requestId ?? ''));
    },
    (found) => found.every((row) => row !== undefined),
    60_000,
  );
  expect(rows.every((row) => row!.n === 1 && row!.status === 'ok')).toBe(true);
  const after = await readTotals(deps.db, accountId);
  expect(after.rows - before.rows).toBe(results.length);
  expect(before.balance - after.balance).toBe(after.rowCredits - before.rowCredits);
});

it('refuses a deleted and a rotated key on both instances within 1 s', async () => {
  const groupId = (await deps.db.query<{ id: number }>("SELECT id FROM routing_groups WHERE name = 'default'")).rows[0]!.id;
  const models = (api: DistApi, secret: string) =>
    fetch(`${api.url}/v1/models`, { headers: { authorization: `Bearer ${secret}` } }).then((r) => r.status);
  const refusedEverywhereWithin = async (secret: string, change: () => Promise<void>) => {
    for (const api of apis) expect(await models(api, secret)).toBe(200); // cached on both
    await change();
    const changedAt = Date.now();
    await eventually(
      'both instances to refuse the old secret',
      async () => Promise.all(apis.map((api) => models(api, secret))),
      (statuses) => statuses.every((s) => s === 401),
      5_000,
    );
    expect(Date.now() - changedAt).toBeLessThanOrEqual(1_000);
  };
  const doomed = await insertApiKey(deps.db, deps.crypto, { accountId, groupId, name: 'doomed' });
  await refusedEverywhereWithin(doomed.secret, async () => {
    const response = await fetch(`${apis[0]!.url}/api/v1/keys/${doomed.id}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBeLessThan(300);
  });
  const rotated = await insertApiKey(deps.db, deps.crypto, { accountId, groupId, name: 'rotated' });
  await refusedEverywhereWithin(rotated.secret, async () => {
    const response = await fetch(`${apis[1]!.url}/api/v1/keys/${rotated.id}/rotate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
    });
    expect(response.status).toBe(200);
  });
});

it("shares one account's concurrency cap across instances", async () => {
  const secret = cappedKey;
  const call = (api: DistApi, stream: boolean) =>
    fetch(`${api.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4.1', stream, messages: [{ role: 'user', content: 'repeat:20:hold the lease ' }] }),
    });
  // One long stream on each instance holds the account's two leases.
  const held = await Promise.all([call(apis[0]!, true), call(apis[1]!, true)]);
  expect(held.map((r) => r.status)).toEqual([200, 200]);
  for (const api of apis) {
    const refused = await call(api, false);
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain('concurrency');
  }
  await Promise.all(held.map((r) => r.text()));
  expect((await call(apis[0]!, false)).status).toBe(200);
});

it('delivers task events to an SSE client connected to the other instance', async () => {
  const submitted = await fetch(`${apis[0]!.url}/v1/tasks/submit`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'veo-3', prompt: 'a lighthouse at dusk', duration_seconds: 2 }),
  });
  expect(submitted.status).toBe(200);
  const taskId = String(((await submitted.json()) as { task_id: string }).task_id);
  const stream = await readTaskStream(`${apis[1]!.url}/v1/tasks/stream/${taskId}`, key, {
    lastEventId: '0',
    timeoutMs: 60_000,
    stopWhen: (events) => events.some((e) => /succeeded|failed/.test(e.data ?? '')),
  });
  expect(stream.status).toBe(200);
  expect(stream.events.some((e) => (e.data ?? '').includes('succeeded'))).toBe(true);
});
