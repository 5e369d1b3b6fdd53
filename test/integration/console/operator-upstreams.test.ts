/**
 * The operator's upstream routes through the whole app on real PostgreSQL, Redis and the provider
 * simulator: the listing carries this API process's cooldown state, and the test button sends one
 * minimal real model call (never billed, no credential in the answer) that reports status, latency
 * and the error class, for a healthy account and for failing ones.
 */
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { startTestGateway, type TestGateway } from '../../support/gateway';
import { consoleLogin } from '../../support/console-login';

type Json = Record<string, unknown>;

describe('operator upstream API', () => {
  let gateway: TestGateway;
  let operator: { cookie: string; csrf: string };

  async function call(method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { cookie: operator.cookie, 'x-csrf-token': operator.csrf };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${gateway.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, text, body: JSON.parse(text) as Json };
  }

  /** `verify: false` for the accounts meant to fail (verification would refuse them). */
  async function addUpstream(
    groupName: string,
    baseUrl: string,
    models: string[],
    verify = true,
  ): Promise<{ groupId: number; id: number }> {
    const group = await call('POST', '/api/v1/operator/groups', { name: groupName, family: null });
    const added = await call('POST', '/api/v1/operator/upstreams', {
      group_id: group.body.id,
      protocol: 'chat',
      base_url: baseUrl,
      api_key: 'sim-key',
      models,
      verify,
    });
    expect(added.status).toBe(201);
    return { groupId: group.body.id as number, id: added.body.id as number };
  }

  const usageRows = async () => Number((await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM usage_rows')).rows[0]!.n);

  beforeAll(async () => {
    gateway = await startTestGateway();
    const login = await consoleLogin(gateway.deps.db, gateway.accountId, 'operator@example.test', 'operator');
    operator = { cookie: login.cookie, csrf: login.csrf };
  }, 60_000);

  afterAll(async () => {
    await gateway.close();
  });

  it('the test button verifies the account (model list) then sends one minimal real model call: status, latency, no error, not billed, no credential', async () => {
    const { id } = await addUpstream('test-ok', gateway.sim.url, ['gpt-4.1']);
    const before = { rows: await usageRows(), simRequests: gateway.sim.requests.length };
    const answer = await call('POST', `/api/v1/operator/upstreams/${id}/test`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({
      object: 'upstream_test',
      id,
      model: 'gpt-4.1',
      protocol: 'chat',
      ok: true,
      reachable: true,
      http_status: 200,
      error_class: null,
    });
    expect(typeof answer.body.latency_ms).toBe('number');
    expect(answer.text).not.toContain('sim-key');
    const sent = gateway.sim.requests.slice(before.simRequests);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /v1/models', 'POST /v1/chat/completions']);
    expect(answer.body.verification).toMatchObject({ ok: true, method: 'model_list' });
    const body = sent[1]!.body as Json;
    expect(body.model).toBe('gpt-4.1');
    expect(Number(body.max_completion_tokens ?? body.max_tokens)).toBeLessThanOrEqual(16);
    expect(await usageRows()).toBe(before.rows);
  });

  it('reports a failing account: its HTTP status and error class, or no answer at all', async () => {
    const { id } = await addUpstream('test-429', `${gateway.sim.url}/_fault/429`, ['gpt-4.1'], false);
    const limited = await call('POST', `/api/v1/operator/upstreams/${id}/test`);
    expect(limited.body).toMatchObject({ ok: false, reachable: true, http_status: 429, error_class: 'rate_limit' });
    await call('PATCH', `/api/v1/operator/upstreams/${id}`, { base_url: `${gateway.sim.url}/_fault/500`, verify: false });
    expect((await call('POST', `/api/v1/operator/upstreams/${id}/test`)).body).toMatchObject({ ok: false, http_status: 500 });
    await call('PATCH', `/api/v1/operator/upstreams/${id}`, { base_url: 'http://127.0.0.1:9', verify: false });
    const refused = await call('POST', `/api/v1/operator/upstreams/${id}/test`);
    expect(refused.body).toMatchObject({ ok: false, reachable: false, http_status: null, error_class: 'unreachable' });
    expect(String(refused.body.detail)).toBe('cannot reach http://127.0.0.1:9: connection refused');
    expect((await call('POST', '/api/v1/operator/upstreams/999999/test')).status).toBe(404);
  });

  it('adds by provider preset: normalised base URL reported, verified first; a failed verification is a 400 naming the field', async () => {
    const group = await call('POST', '/api/v1/operator/groups', { name: 'presets', family: null });
    const providers = (await call('GET', '/api/v1/operator/providers')).body.data as Json[];
    expect(providers.find((p) => p.name === 'azure-openai')).toMatchObject({
      protocol: 'chat',
      credential_header: 'api-key',
      paths: 'deployments',
      default_base_url: null,
    });
    const added = await call('POST', '/api/v1/operator/upstreams', {
      group_id: group.body.id,
      provider: 'azure-openai',
      base_url: `${gateway.sim.url}/openai/deployments/gpt-4.1/chat/completions?api-version=2025-01-01-preview`,
      api_key: 'sim-key',
      models: ['gpt-4.1'],
    });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({
      provider: 'azure-openai',
      protocol: 'chat',
      base_url: gateway.sim.url,
      api_version: '2025-01-01-preview',
      verification: { ok: true, method: 'minimal_call' },
    });
    expect((added.body.normalized as string[]).join(' ')).toMatch(/deployment path/);
    const listed = ((await call('GET', '/api/v1/operator/upstreams')).body.data as Json[]).find((u) => u.id === added.body.id)!;
    expect(listed).toMatchObject({ provider: 'azure-openai', api_version: '2025-01-01-preview', last_check: { ok: true } });

    const wrongKey = await call('POST', '/api/v1/operator/upstreams', {
      group_id: group.body.id,
      provider: 'openai',
      base_url: gateway.sim.url,
      api_key: 'nope',
      models: ['gpt-4.1'],
    });
    expect(wrongKey.status).toBe(400);
    expect(wrongKey.body.error).toMatchObject({
      param: 'api_key',
      message: expect.stringMatching(/^verification failed: the provider refused the credential \(HTTP 401\)/),
    });
    const wrongModel = await call('PATCH', `/api/v1/operator/upstreams/${added.body.id as number}`, { models: ['gpt-4o-nonexistent'] });
    expect(wrongModel.status).toBe(400);
    expect(wrongModel.body.error).toMatchObject({ param: 'models' });
    const noProvider = await call('POST', '/api/v1/operator/upstreams', { group_id: group.body.id, api_key: 'k', models: ['gpt-4.1'] });
    expect(noProvider.status).toBe(400);
    expect(noProvider.text).toContain('name a provider or a protocol');
  });

  it('a changed base URL is normalised as on add, with or without verification, and the normalisation reported; a pasted api-version is kept', async () => {
    const group = await call('POST', '/api/v1/operator/groups', { name: 'change-presets', family: null });
    const add = async (body: Json) =>
      (await call('POST', '/api/v1/operator/upstreams', { group_id: group.body.id, api_key: 'sim-key', models: ['gpt-4.1'], ...body })).body
        .id as number;
    const stored = async (id: number) =>
      (
        await gateway.deps.db.query<{ base_url: string; api_version: string | null }>(
          'SELECT base_url, api_version FROM upstream_accounts WHERE id = $1',
          [id],
        )
      ).rows[0]!;
    const openai = await add({ provider: 'openai', base_url: gateway.sim.url });

    const unverified = await call('PATCH', `/api/v1/operator/upstreams/${openai}`, { base_url: `${gateway.sim.url}/v1/`, verify: false });
    expect(unverified.status).toBe(200);
    expect(unverified.body).toMatchObject({ updated: true, base_url: gateway.sim.url, verification: { ok: null } });
    expect(unverified.body.normalized).toEqual(['removed the version segment /v1 (the gateway adds the paths after it)']);
    expect(await stored(openai)).toEqual({ base_url: gateway.sim.url, api_version: null });
    // Saved as normalised, the account serves: the Test button's real call reaches /v1/responses, not /v1/v1/….
    expect((await call('POST', `/api/v1/operator/upstreams/${openai}/test`)).body).toMatchObject({ ok: true, http_status: 200 });

    const sent = gateway.sim.requests.length;
    const verified = await call('PATCH', `/api/v1/operator/upstreams/${openai}`, { base_url: `${gateway.sim.url}/v1` });
    expect(verified.status).toBe(200);
    expect(verified.body).toMatchObject({
      base_url: gateway.sim.url,
      normalized: [expect.stringMatching(/^removed the version segment \/v1/)],
      verification: { ok: true, method: 'model_list' },
    });
    expect(gateway.sim.requests.slice(sent).map((r) => r.path)).toEqual(['/v1/models']);
    const unchanged = await call('PATCH', `/api/v1/operator/upstreams/${openai}`, { priority: 3 });
    expect(unchanged.body).toMatchObject({ base_url: gateway.sim.url, normalized: [], verification: { ok: null } });
    const notAzure = await call('PATCH', `/api/v1/operator/upstreams/${openai}`, { api_version: '2025-01-01-preview', verify: false });
    expect(notAzure.status).toBe(400);
    expect(notAzure.body.error).toMatchObject({ param: 'api_version', message: 'an api-version is only taken by azure-openai' });

    const azure = await add({ provider: 'azure-openai', base_url: gateway.sim.url });
    expect(await stored(azure)).toEqual({ base_url: gateway.sim.url, api_version: '2024-10-21' });
    const pasted = await call('PATCH', `/api/v1/operator/upstreams/${azure}`, {
      base_url: `${gateway.sim.url}/openai/deployments/gpt-4.1/chat/completions?api-version=2025-01-01-preview`,
      verify: false,
    });
    expect(pasted.body).toMatchObject({ base_url: gateway.sim.url, api_version: '2025-01-01-preview' });
    expect((pasted.body.normalized as string[]).join('; ')).toMatch(/api-version 2025-01-01-preview kept.*deployment path/);
    expect(await stored(azure)).toEqual({ base_url: gateway.sim.url, api_version: '2025-01-01-preview' });
    // A new base URL without an api-version keeps the stored one; verified, the probe uses it.
    const probed = gateway.sim.requests.length;
    const moved = await call('PATCH', `/api/v1/operator/upstreams/${azure}`, { base_url: `${gateway.sim.url}/openai` });
    expect(moved.body).toMatchObject({
      base_url: gateway.sim.url,
      api_version: '2025-01-01-preview',
      verification: { ok: true, method: 'minimal_call' },
    });
    expect(gateway.sim.requests.slice(probed).map((r) => r.path)).toEqual([
      '/openai/deployments/gpt-4.1/chat/completions?api-version=2025-01-01-preview',
    ]);
    expect((await call('PATCH', `/api/v1/operator/upstreams/${azure}`, { api_version: '2024-06-01', verify: false })).body).toMatchObject({
      api_version: '2024-06-01',
    });
    expect(await stored(azure)).toEqual({ base_url: gateway.sim.url, api_version: '2024-06-01' });
    expect((await call('PATCH', '/api/v1/operator/upstreams/999999', { base_url: gateway.sim.url, verify: false })).status).toBe(404);
  });

  it("lists this process's cooldowns: an account that failed a real call is cooling down and not healthy", async () => {
    const { groupId, id } = await addUpstream('cooling', `${gateway.sim.url}/_fault/503`, ['gpt-4.1'], false);
    const listed = async () => ((await call('GET', '/api/v1/operator/upstreams')).body.data as Json[]).find((u) => u.id === id)!;
    expect(await listed()).toMatchObject({ cooling_down_until: null, healthy: true });
    const key = await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name: 'cooling' });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(response.status).toBeGreaterThanOrEqual(500);
    await response.text();
    const row = await listed();
    expect(row.healthy).toBe(false);
    expect(Date.parse(String(row.cooling_down_until))).toBeGreaterThan(Date.now());
    const others = ((await call('GET', '/api/v1/operator/upstreams')).body.data as Json[]).filter(
      (u) => u.id !== id && u.status === 'active',
    );
    expect(others.every((u) => u.healthy === true && u.cooling_down_until === null)).toBe(true);
  });
});
