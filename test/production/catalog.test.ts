/**
 * The catalog as operator data: seeded from the default catalog on first start, changed with the
 * admin CLI (from dist/), each change visible on two running API processes within 2 s with no
 * restart: a new model, an alias, a price change (applied to the next request's cost), a retirement
 * (no longer listed, 400 unsupported_model). Validation refuses what the family table forbids.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { computeTokenCost } from '../../src/billing/compute-cost';
import { parseCatalogModel } from '../../src/catalog/catalog-model-schema';
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import { bootstrap } from '../../src/process/bootstrap';
import { createTestDependencies, type TestDependencies } from '../support/dependencies';
import { ensureBuilt, ROOT, startDistApi, type DistApi } from './dist-processes';

jest.setTimeout(120_000);

let sim: Simulator;
let deps: TestDependencies;
let key: string;
const apis: DistApi[] = [];

beforeAll(async () => {
  ensureBuilt();
  sim = await startSimulator({ port: 0 });
  deps = await createTestDependencies();
  key = (await bootstrap(deps.db, deps.crypto, deps.catalog, { simulatorUrl: sim.url, simulatorKey: 'sim-key' })).key!;
  apis.push(...(await Promise.all([startDistApi(deps.env), startDistApi(deps.env)])));
});

afterAll(async () => {
  await Promise.all(apis.map((api) => api.stop('SIGKILL')));
  await sim?.close();
  await deps?.close();
});

async function admin(...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'dist', 'scripts', 'admin.js'), ...args, '--json'], {
    env: { PATH: process.env.PATH ?? '', ...deps.env },
  }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return JSON.parse(stdout) as Record<string, unknown>;
}

const listed = async (api: DistApi) => {
  const body = (await (await fetch(`${api.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
    data: Array<{ id: string }>;
  };
  return body.data.map((m) => m.id);
};

const chat = (api: DistApi, model: string) =>
  fetch(`${api.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'price me' }] }),
  });

/** Polls every instance until `seen` holds on all of them; the change must show within 2 s. */
async function onEveryInstanceWithin2s(what: string, seen: (api: DistApi) => Promise<boolean>): Promise<void> {
  const started = Date.now();
  for (const api of apis) {
    while (!(await seen(api))) {
      if (Date.now() - started > 2_000) throw new Error(`${what}: not visible on ${api.url} after 2 s`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
}

it('validates the default catalog against the family table', () => {
  for (const model of DEFAULT_CATALOG) expect(() => parseCatalogModel(model)).not.toThrow();
});

it('is seeded from the default catalog on first start', async () => {
  const { models } = (await admin('model', 'list')) as { models: Array<{ id: string }> };
  expect(models.map((m) => m.id)).toEqual(DEFAULT_CATALOG.map((m) => m.id));
  expect(await listed(apis[0]!)).toContain('gpt-4.1');
});

it('adds a model, visible on every instance within 2 s', async () => {
  const definition = { ...DEFAULT_CATALOG.find((m) => m.id === 'mistral-large')!, id: 'mistral-medium-3', upstreamModel: 'mistral-large' };
  const added = await admin('model', 'add', '--definition', JSON.stringify(definition));
  expect(added.model).toMatchObject({ id: 'mistral-medium-3' });
  await onEveryInstanceWithin2s('the new model', async (api) => (await listed(api)).includes('mistral-medium-3'));
});

it('resolves a new alias on every instance within 2 s', async () => {
  expect((await admin('model', 'alias', '--id', 'gpt-4.1', '--alias', 'gpt-4.1-2025-04-14')).model).toMatchObject({
    aliases: ['gpt-4.1-2025-04-14'],
  });
  await onEveryInstanceWithin2s(
    'the alias',
    async (api) => (await fetch(`${api.url}/v1/models/gpt-4.1-2025-04-14`, { headers: { authorization: `Bearer ${key}` } })).status === 200,
  );
});

it('applies a price change to requests that end after it, on every instance', async () => {
  const prices = { inputPerMillion: 7_000_000, outputPerMillion: 70_000_000 };
  await admin('model', 'update', '--id', 'gpt-4.1', '--set', JSON.stringify({ prices }));
  await onEveryInstanceWithin2s('the new price', async (api) => {
    const response = await chat(api, 'gpt-4.1');
    const body = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    const expected = computeTokenCost(
      {
        inputTokens: body.usage.prompt_tokens,
        outputTokens: body.usage.completion_tokens,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        reasoningTokens: 0,
      },
      prices,
    );
    return Number(response.headers.get('x-request-cost-credits')) === expected;
  });
});

it('retires a model: no longer listed, 400 unsupported_model, on every instance within 2 s', async () => {
  expect((await chat(apis[0]!, 'kimi-k2')).status).toBe(200);
  await admin('model', 'retire', '--id', 'kimi-k2');
  await onEveryInstanceWithin2s('the retirement', async (api) => !(await listed(api)).includes('kimi-k2'));
  for (const api of apis) {
    const refused = await chat(api, 'kimi-k2');
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('unsupported_model');
  }
});

it('refuses a model its family cannot be called as, and a name already taken', async () => {
  const chatOnly = { ...DEFAULT_CATALOG.find((m) => m.id === 'grok-4')!, id: 'grok-5', protocols: ['chat', 'messages'] };
  expect(String((await admin('model', 'add', '--definition', JSON.stringify(chatOnly))).error)).toContain(
    'family 7 cannot be called with messages',
  );
  const taken = await admin('model', 'alias', '--id', 'gpt-5', '--alias', 'gpt-4.1-2025-04-14');
  expect(String(taken.error)).toContain('already names model gpt-4.1');
  const { models } = (await admin('model', 'list')) as { models: Array<{ id: string }> };
  expect(models.map((m) => m.id)).not.toContain('grok-5');
});
