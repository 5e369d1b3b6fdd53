/**
 * POST /api/v1/dial/test (interface 4.9, issue 7): cookie auth only, a minimal real request through
 * the routing and translation path, never billed, per-stage results.
 */
import { addUpstreamAccount, createConsoleUser, createGroup } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

interface Stage {
  stage: string;
  ok: boolean;
  detail: string;
  status?: number;
  latency_ms?: number;
}

describe('dial test', () => {
  let gateway: TestGateway;
  let cookie: string;
  let csrf: string;
  let bootstrapKeyId: number;

  beforeAll(async () => {
    gateway = await startTestGateway();
    await createConsoleUser(gateway.deps.db, { accountId: gateway.accountId, email: 'ops@example.com', password: 'correct horse battery' });
    const login = await fetch(`${gateway.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'ops@example.com', password: 'correct horse battery' }),
    });
    expect(login.status).toBe(200);
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    csrf = ((await login.json()) as { csrf_token: string }).csrf_token;
    bootstrapKeyId = (await gateway.deps.db.query<{ id: number }>("SELECT id FROM api_keys WHERE name = 'bootstrap'")).rows[0].id;
  });
  afterAll(async () => {
    await gateway.close();
  });

  async function dial(
    body: unknown,
    headers: Record<string, string> = { cookie, 'x-csrf-token': csrf },
  ): Promise<{ status: number; json: { ok?: boolean; stages?: Stage[]; error?: { message: string } } }> {
    const response = await fetch(`${gateway.url}/api/v1/dial/test`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: response.status, json: (await response.json()) as never };
  }

  const failing = (stages: Stage[] | undefined) => stages?.find((s) => !s.ok)?.stage;

  it('succeeds through every stage with the upstream status and latency, and bills nothing', async () => {
    const before = await gateway.deps.db.query('SELECT count(*)::int AS n FROM usage_rows');
    gateway.sim.clearRequests();
    const { status, json } = await dial({ model: 'claude-sonnet-4-5', protocol: 'chat', keyId: bootstrapKeyId });
    expect(status).toBe(200);
    expect(json.ok).toBe(true);
    expect(json.stages!.map((s) => [s.stage, s.ok])).toEqual([
      ['key', true],
      ['model', true],
      ['group', true],
      ['protocol', true],
      ['upstream_account', true],
      ['upstream', true],
    ]);
    const upstream = json.stages!.find((s) => s.stage === 'upstream')!;
    expect(upstream.status).toBe(200);
    expect(typeof upstream.latency_ms).toBe('number');
    // A real request went through the translation path (Chat → the Messages-native model).
    expect(gateway.sim.requests.some((r) => r.path.startsWith('/v1/messages'))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const after = await gateway.deps.db.query('SELECT count(*)::int AS n FROM usage_rows');
    expect(after.rows[0].n).toBe(before.rows[0].n);
  });

  it.each([
    ['an unknown key', () => ({ model: 'gpt-4.1', protocol: 'chat', keyId: 999_999 }), 'key'],
    ['an unknown model', () => ({ model: 'no-such-model', protocol: 'chat', keyId: bootstrapKeyId }), 'model'],
    ['an unknown protocol', () => ({ model: 'gpt-4.1', protocol: 'smoke-signals', keyId: bootstrapKeyId }), 'protocol'],
    ['a protocol the model does not allow', () => ({ model: 'mistral-large', protocol: 'messages', keyId: bootstrapKeyId }), 'protocol'],
  ])('reports the failing stage for %s', async (_name, body, stage) => {
    const { status, json } = await dial(body());
    expect(status).toBe(200);
    expect(json.ok).toBe(false);
    expect(failing(json.stages)).toBe(stage);
  });

  it('reports a group that does not route the model', async () => {
    const groupId = (await gateway.deps.db.query<{ id: number }>("SELECT id FROM routing_groups WHERE name = 'openai'")).rows[0].id;
    const key = await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name: 'dial-openai' });
    const { json } = await dial({ model: 'claude-sonnet-4-5', protocol: 'messages', keyId: key.id });
    expect(failing(json.stages)).toBe('group');
  });

  it('reports a group with no account for the model, and a failing upstream with its status', async () => {
    const empty = await createGroup(gateway.deps.db, { name: 'dial-empty' });
    const emptyKey = await insertApiKey(gateway.deps.db, gateway.deps.crypto, {
      accountId: gateway.accountId,
      groupId: empty,
      name: 'dial-empty',
    });
    const broken = await createGroup(gateway.deps.db, { name: 'dial-broken' });
    await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
      groupId: broken,
      protocol: 'chat',
      baseUrl: `${gateway.sim.url}/_fault/500`,
      apiKey: 'sim-key',
      models: ['gpt-4.1'],
    });
    const brokenKey = await insertApiKey(gateway.deps.db, gateway.deps.crypto, {
      accountId: gateway.accountId,
      groupId: broken,
      name: 'dial-broken',
    });
    gateway.services.upstreams.invalidate();
    expect(failing((await dial({ model: 'gpt-4.1', protocol: 'chat', keyId: emptyKey.id })).json.stages)).toBe('upstream_account');
    const { json } = await dial({ model: 'gpt-4.1', protocol: 'chat', keyId: brokenKey.id });
    expect(failing(json.stages)).toBe('upstream');
    expect(json.stages!.find((s) => s.stage === 'upstream')!.status).toBe(500);
  });

  it('needs a console session with its CSRF token; a key is not enough; the body is validated', async () => {
    expect((await dial({ model: 'gpt-4.1', protocol: 'chat', keyId: bootstrapKeyId }, { 'x-api-key': gateway.key })).status).toBe(401);
    expect((await dial({ model: 'gpt-4.1', protocol: 'chat', keyId: bootstrapKeyId }, { cookie })).status).toBe(403);
    const invalid = await dial({ model: 'gpt-4.1', protocol: 'chat' });
    expect(invalid.status).toBe(400);
    expect(invalid.json.error!.message).toMatch(/keyId/);
  });

  it("cannot dial another account's key", async () => {
    const other = await gateway.deps.db.query<{ id: number }>("INSERT INTO accounts (name, tier) VALUES ('other', 'pro') RETURNING id");
    const groupId = (await gateway.deps.db.query<{ id: number }>("SELECT id FROM routing_groups WHERE name = 'default'")).rows[0].id;
    const foreign = await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: other.rows[0].id, groupId, name: 'foreign' });
    expect(failing((await dial({ model: 'gpt-4.1', protocol: 'chat', keyId: foreign.id })).json.stages)).toBe('key');
  });
});
