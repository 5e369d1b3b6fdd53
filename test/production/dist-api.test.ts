/**
 * The API as production runs it: `node dist/src/server.js`, built by `npm run build`. It starts,
 * answers management and inference calls, and on SIGTERM stops accepting, lets the stream in flight
 * finish, flushes its usage event and exits 0 (the stream is billed once).
 */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { bootstrap } from '../../src/process/bootstrap';
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { eventually } from '../integration/billing/billing-fixtures';
import { createTestDependencies, type TestDependencies } from '../support/dependencies';
import { ensureBuilt, startDistApi, startDistWorker, type DistApi, type DistProcess } from './dist-processes';

jest.setTimeout(120_000);

let sim: Simulator;
let deps: TestDependencies;
let worker: DistProcess;
let api: DistApi;
let key: string;
let slowKey: string;

beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ port: 0 });
  deps = await createTestDependencies();
  const boot = await bootstrap(deps.db, deps.crypto, deps.catalog, { simulatorUrl: sim.url, simulatorKey: 'sim-key' });
  key = boot.key!;
  const slowGroup = await createGroup(deps.db, { name: 'slow', family: null });
  await addUpstreamAccount(deps.db, deps.crypto, {
    groupId: slowGroup,
    name: 'slow chat',
    protocol: 'chat',
    baseUrl: `${sim.url}/_latency/0/40`,
    apiKey: 'sim-key',
    models: ['*'],
  });
  slowKey = (await insertApiKey(deps.db, deps.crypto, { accountId: boot.accountId!, groupId: slowGroup, name: 'slow' })).secret;
  worker = await startDistWorker(deps.env, 'billing');
  api = await startDistApi({ ...deps.env, LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: '20000' });
  // The figure quoted in the README (process start to the first 200 of /readyz).
  process.stdout.write(`API from dist: ready ${api.readyMs} ms after spawn\n`);
});

afterAll(async () => {
  await api?.stop('SIGKILL');
  await worker?.stop();
  await sim?.close();
  await deps?.close();
});

it('serves management and inference calls from the compiled JavaScript', async () => {
  const models = await fetch(`${api.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
  expect(models.status).toBe(200);
  expect(((await models.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);
  const chat = await fetch(`${api.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hello from dist' }] }),
  });
  expect(chat.status).toBe(200);
  expect(((await chat.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toContain(
    'Hello from dist',
  );
});

it('on SIGTERM finishes the stream in flight, refuses new connections, bills the stream and exits 0', async () => {
  const response = await fetch(`${api.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${slowKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'gpt-4.1',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'repeat:30:one two three ' }],
    }),
  });
  expect(response.status).toBe(200);
  const requestId = response.headers.get('x-request-id')!;
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = decoder.decode((await reader.read()).value, { stream: true });

  api.child.kill('SIGTERM');
  // Stopped accepting: a new connection is refused while the stream still runs.
  await eventually(
    'the listener to close',
    () =>
      fetch(`${api.url}/healthz`).then(
        () => 'open',
        () => 'refused',
      ),
    (state) => state === 'refused',
    10_000,
  );
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  expect(text).toContain('data: [DONE]');
  expect(await api.exited).toBe(0);
  expect(api.output()).toContain('API stopped');

  const rows = await eventually(
    'the stream to be billed',
    async () =>
      (
        await deps.db.query<{ status: string; credits: number }>('SELECT status, credits FROM usage_rows WHERE request_id = $1', [
          requestId,
        ])
      ).rows,
    (found) => found.length > 0,
    30_000,
  );
  expect(rows).toHaveLength(1);
  expect(rows[0]).toMatchObject({ status: 'ok' });
  expect(rows[0]!.credits).toBeGreaterThan(0);
});
