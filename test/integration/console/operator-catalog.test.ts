/**
 * The operator's catalog routes through the whole app on real PostgreSQL and Redis: they call the same
 * catalog service as the admin CLI (its refusals are 400s in the management envelope), a change
 * serves at once in this process, and an alias or a retirement reaches real inference calls.
 */
import { createConsoleSession, SESSION_COOKIE } from '../../../src/auth/console-session';
import { loadCatalogModels } from '../../../src/catalog/catalog-store';
import { createConsoleUser } from '../../../src/process/seed';
import { startTestGateway, type TestGateway } from '../../support/gateway';

type Json = Record<string, unknown>;

describe('operator catalog API', () => {
  let gateway: TestGateway;
  let operator: { cookie: string; csrf: string };
  let member: { cookie: string; csrf: string };

  async function session(email: string, role: 'member' | 'operator') {
    const userId = await createConsoleUser(gateway.deps.db, { accountId: gateway.accountId, email, password: 'a long password' });
    await gateway.deps.db.query('UPDATE console_users SET role = $2 WHERE id = $1', [userId, role]);
    const created = await createConsoleSession(gateway.deps.db, userId, Date.now());
    return { cookie: `${SESSION_COOKIE}=${created.token}`, csrf: created.csrfToken };
  }

  async function call(
    method: string,
    path: string,
    options: { as?: { cookie: string; csrf: string }; body?: unknown; csrf?: boolean } = {},
  ) {
    const headers: Record<string, string> = {};
    if (options.as) headers.cookie = options.as.cookie;
    if (options.as && options.csrf !== false) headers['x-csrf-token'] = options.as.csrf;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  async function chat(model: string) {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  }

  const listed = async (id: string) =>
    ((await call('GET', '/api/v1/operator/catalog', { as: operator })).body.data as Json[]).find((m) => m.id === id);

  beforeAll(async () => {
    gateway = await startTestGateway();
    operator = await session('operator@example.test', 'operator');
    member = await session('member@example.test', 'member');
  }, 60_000);

  afterAll(async () => {
    await gateway.close();
  });

  it('is for operators only, with CSRF on writes', async () => {
    expect((await call('PATCH', '/api/v1/operator/catalog/gpt-4.1', { as: member, body: { maxOutputTokens: 100 } })).status).toBe(403);
    expect((await call('PATCH', '/api/v1/operator/catalog/gpt-4.1', { body: { maxOutputTokens: 100 } })).status).toBe(401);
    expect(
      (await call('PATCH', '/api/v1/operator/catalog/gpt-4.1', { as: operator, csrf: false, body: { maxOutputTokens: 100 } })).status,
    ).toBe(403);
  });

  it('changes a price and a limit, stored in PostgreSQL and listed at once', async () => {
    const before = (await listed('gpt-4.1'))!;
    const answer = await call('PATCH', '/api/v1/operator/catalog/gpt-4.1', {
      as: operator,
      body: { prices: { inputPerMillion: 7_000_000 }, maxOutputTokens: 12_345 },
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      id: 'gpt-4.1',
      max_output_tokens: 12_345,
      prices: { inputPerMillion: 7_000_000, outputPerMillion: (before.prices as Json).outputPerMillion },
    });
    expect(await listed('gpt-4.1')).toMatchObject({ max_output_tokens: 12_345, prices: { inputPerMillion: 7_000_000 } });
    const stored = (await loadCatalogModels(gateway.deps.db)).find((m) => m.id === 'gpt-4.1')!;
    expect(stored.prices.inputPerMillion).toBe(7_000_000);
  });

  it('refuses what the catalog service refuses, as 400 in the management envelope', async () => {
    const forbidden = await call('PATCH', '/api/v1/operator/catalog/gpt-4.1', { as: operator, body: { protocols: ['generate-content'] } });
    expect(forbidden.status).toBe(400);
    expect(forbidden.body.error).toMatchObject({ type: 'invalid_request_error' });
    expect(String((forbidden.body.error as Json).message)).toMatch(/generate-content/);
    const unknown = await call('POST', '/api/v1/operator/catalog/no-such-model/retire', { as: operator });
    expect(unknown.status).toBe(400);
    expect(String((unknown.body.error as Json).message)).toMatch(/no model no-such-model/);
    const taken = await call('POST', '/api/v1/operator/catalog/gpt-4.1/aliases', { as: operator, body: { alias: 'gpt-5' } });
    expect(taken.status).toBe(400);
    const empty = await call('POST', '/api/v1/operator/catalog/gpt-4.1/aliases', { as: operator, body: { alias: '' } });
    expect(empty.body.error).toMatchObject({ param: 'alias' });
    const copy = await call('POST', '/api/v1/operator/catalog', { as: operator, body: { id: 'gpt-4.1-copy' } });
    expect(copy.status).toBe(400);
  });

  it('adds a model copied from another, and an alias that answers inference calls', async () => {
    const model = (await loadCatalogModels(gateway.deps.db)).find((m) => m.id === 'gpt-4.1')!;
    const added = await call('POST', '/api/v1/operator/catalog', {
      as: operator,
      body: { ...model, id: 'gpt-4.1-ops', aliases: [], upstreamModel: 'gpt-4.1' },
    });
    expect(added.status).toBe(201);
    expect(
      (await call('POST', '/api/v1/operator/catalog', { as: operator, body: { ...model, id: 'gpt-4.1-ops', aliases: [] } })).status,
    ).toBe(400);
    expect(await listed('gpt-4.1-ops')).toMatchObject({ retired: false, aliases: [] });
    expect((await chat('ops-fast')).status).toBe(400);
    // The simulator's upstream accounts name the models they serve, so the alias goes on a served one.
    const alias = await call('POST', '/api/v1/operator/catalog/gpt-4.1/aliases', { as: operator, body: { alias: 'ops-fast' } });
    expect(alias.status).toBe(200);
    expect(alias.body.aliases).toContain('ops-fast');
    expect((await chat('ops-fast')).status).toBe(200);
  });

  it('retires a model: its slug answers 400 unsupported_model; restoring brings it back', async () => {
    expect((await chat('gpt-4.1')).status).toBe(200);
    const retired = await call('POST', '/api/v1/operator/catalog/gpt-4.1/retire', { as: operator });
    expect(retired.body).toMatchObject({ retired: true });
    const refused = await chat('gpt-4.1');
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('unsupported_model');
    await call('POST', '/api/v1/operator/catalog/gpt-4.1/retire', { as: operator, body: { retired: false } });
    expect((await chat('gpt-4.1')).status).toBe(200);
  });
});
