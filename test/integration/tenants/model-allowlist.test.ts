/**
 * Issue 21, per-key model allowlist: `allowed_models` (exact slugs or `prefix*`, empty = all) on key
 * create and update. A model outside it answers 403 `permission_error` "model not allowed for this
 * key" in every protocol's envelope (Messages, Responses, Chat, Generate-Content, images, tasks,
 * count-tokens) before any upstream work and free of charge; GET /v1/models and available-models
 * show only what the key may call; an alias resolves to its slug before the check.
 */
import { startTestGateway, type TestGateway } from '../../support/gateway';

type Json = Record<string, unknown>;
const GATED = 'model not allowed for this key';

describe('per-key model allowlist', () => {
  let gateway: TestGateway;
  let secret: string;
  let keyId: number;

  async function post(path: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  }
  const manage = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.key },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const bearer = () => ({ authorization: `Bearer ${secret}` });
  const chatBody = (model: string) => ({ model, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] });
  const usageRows = async () => Number((await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM usage_rows')).rows[0]!.n);

  beforeAll(async () => {
    gateway = await startTestGateway({ s3: true });
    const created = await manage('POST', '/api/v1/keys', {
      name: 'haiku and gpt-4.1',
      group_id: 'default',
      allowed_models: ['claude-haiku*', 'gpt-4.1'],
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ allowed_models: ['claude-haiku*', 'gpt-4.1'] });
    secret = created.body.key as string;
    keyId = created.body.id as number;
  }, 60_000);
  afterAll(async () => {
    await gateway.close();
  });

  it('allows the listed models, an alias of one included', async () => {
    expect(
      (await post('/v1/messages', chatBody('claude-haiku-4-5-20251001'), { 'x-api-key': secret, 'anthropic-version': '2023-06-01' }))
        .status,
    ).toBe(200);
    expect((await post('/v1/chat/completions', chatBody('gpt-4.1-2025-04-14'), bearer())).status).toBe(200);
  });

  it('refuses every other model with 403 permission_error in each protocol envelope, before any upstream call, unbilled', async () => {
    const rows = await usageRows();
    const simCalls = gateway.sim.requests.length;
    const messages = await post('/v1/messages', chatBody('claude-sonnet-4-5'), { 'x-api-key': secret, 'anthropic-version': '2023-06-01' });
    expect(messages.status).toBe(403);
    expect(messages.body).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
    expect(String((messages.body.error as Json).message)).toContain(GATED);

    const openAiShaped: Array<[string, unknown]> = [
      ['/v1/chat/completions', chatBody('gpt-5')],
      ['/v1/responses', { model: 'gpt-5', input: 'hi' }],
      ['/v1/images/generations', { model: 'gpt-image-1', prompt: 'a lighthouse' }],
      ['/v1/tasks/submit', { model: 'veo-3', prompt: 'a dog in the rain', duration_seconds: 4 }],
      ['/v1/responses/input_tokens', { model: 'gpt-5', input: 'hi' }],
    ];
    for (const [path, body] of openAiShaped) {
      const answer = await post(path, body, bearer());
      expect({ path, status: answer.status }).toEqual({ path, status: 403 });
      expect(answer.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
      expect(String((answer.body.error as Json).message)).toContain(GATED);
    }
    const counted = await post('/v1/messages/count_tokens', chatBody('claude-opus-4-5'), {
      'x-api-key': secret,
      'anthropic-version': '2023-06-01',
    });
    expect(counted.status).toBe(403);
    expect(counted.body).toMatchObject({ type: 'error', error: { type: 'permission_error' } });

    const contents = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    for (const path of ['/v1beta/models/gemini-2.5-flash:generateContent', '/v1beta/models/gemini-2.5-flash:countTokens']) {
      const answer = await post(`${path}?key=${secret}`, contents);
      expect({ path, status: answer.status }).toEqual({ path, status: 403 });
      expect(answer.body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
      expect(String((answer.body.error as Json).message)).toContain(GATED);
    }
    expect(gateway.sim.requests.length).toBe(simCalls);
    expect(await usageRows()).toBe(rows);
  });

  it('GET /v1/models and available-models list only the allowed models', async () => {
    const response = await fetch(`${gateway.url}/v1/models`, { headers: bearer() });
    const ids = ((await response.json()) as { data: Json[] }).data.map((m) => m.id).sort();
    expect(ids).toEqual(['claude-haiku-4-5', 'claude-haiku-5-5', 'gpt-4.1']);
    expect((await fetch(`${gateway.url}/v1/models/gpt-5`, { headers: bearer() })).status).toBe(404);
    const available = await fetch(`${gateway.url}/api/v1/me/available-models`, { headers: { 'x-api-key': secret } });
    const availableIds = ((await available.json()) as { data: Json[] }).data.map((m) => m.id);
    expect(availableIds.length).toBeGreaterThan(0);
    expect(availableIds.every((id) => ['claude-haiku-4-5', 'claude-haiku-5-5', 'gpt-4.1'].includes(String(id)))).toBe(true);
  });

  it('is edited with PUT (effective at once) and validated', async () => {
    const bad = await manage('PUT', `/api/v1/keys/${keyId}`, { allowed_models: ['gpt*5'] });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ param: expect.stringContaining('allowed_models') });
    expect((await post('/v1/chat/completions', chatBody('gpt-5'), bearer())).status).toBe(403);
    // An alias in the list is stored as its model's slug.
    const byAlias = await manage('PUT', `/api/v1/keys/${keyId}`, { allowed_models: ['gpt-5-codex', 'claude-haiku*'] });
    expect(byAlias.body).toMatchObject({ allowed_models: ['gpt-5', 'claude-haiku*'] });
    expect((await post('/v1/chat/completions', chatBody('gpt-5'), bearer())).status).toBe(200);
    // A list that matches no model: the models endpoint says no model is granted (interface 7).
    await manage('PUT', `/api/v1/keys/${keyId}`, { allowed_models: ['no-such-model'] });
    const none = await fetch(`${gateway.url}/v1/models`, { headers: bearer() });
    expect(none.status).toBe(403);
    expect(((await none.json()) as { error: Json }).error).toMatchObject({ type: 'permission_error' });
    const cleared = await manage('PUT', `/api/v1/keys/${keyId}`, { allowed_models: [] });
    expect(cleared.body).toMatchObject({ allowed_models: [] });
    expect((await post('/v1/chat/completions', chatBody('claude-sonnet-4-5'), bearer())).status).toBe(200);
  });
});
