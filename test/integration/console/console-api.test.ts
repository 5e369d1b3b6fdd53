/**
 * The management API the console added, through the whole app on real PostgreSQL and Redis: usage per
 * day by model and key, key spend windows, CSV export and the protocol/status filters, the routing
 * groups list, and the operator API (role, session only, CSRF, validation, ledger entries with a
 * reason that reach the balance admission reads, accounts, groups, upstreams, the reachability test).
 */
import { randomBytes } from 'node:crypto';
import { createConsoleSession, SESSION_COOKIE } from '../../../src/auth/console-session';
import { settleUsageEvents } from '../../../src/billing/settle-usage-events';
import type { UsageEvent } from '../../../src/billing/usage-event';
import { createConsoleUser } from '../../../src/process/seed';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { startTestGateway, type TestGateway } from '../../support/gateway';

type Json = Record<string, unknown>;
const HOUR = 3_600_000;

describe('console API', () => {
  let gateway: TestGateway;
  let keyId: number;
  let otherKey: { id: number; secret: string };
  let member: { cookie: string; csrf: string };
  let operator: { cookie: string; csrf: string };
  const now = Date.now();

  const usage = (overrides: Partial<UsageEvent>): UsageEvent => ({
    requestId: `req_${randomBytes(10).toString('hex')}`,
    accountId: gateway.accountId,
    apiKeyId: keyId,
    model: 'gpt-4.1',
    protocol: 'chat',
    upstreamAccountId: null,
    promptTokens: 100,
    completionTokens: 20,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    images: 0,
    videoSeconds: 0,
    credits: 1_000,
    stream: false,
    status: 'ok',
    startedAt: now - HOUR,
    ...overrides,
  });

  async function session(email: string, role: 'member' | 'operator') {
    const userId = await createConsoleUser(gateway.deps.db, { accountId: gateway.accountId, email, password: 'a long password' });
    await gateway.deps.db.query('UPDATE console_users SET role = $2 WHERE id = $1', [userId, role]);
    const created = await createConsoleSession(gateway.deps.db, userId, Date.now());
    return { cookie: `${SESSION_COOKIE}=${created.token}`, csrf: created.csrfToken };
  }

  async function call(
    method: string,
    path: string,
    options: { as?: { cookie: string; csrf: string }; key?: string; body?: unknown; csrf?: boolean } = {},
  ) {
    const headers: Record<string, string> = {};
    if (options.as) headers.cookie = options.as.cookie;
    if (options.as && options.csrf !== false) headers['x-csrf-token'] = options.as.csrf;
    if (options.key) headers['x-api-key'] = options.key;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: (response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : {}) as Json,
    };
  }

  beforeAll(async () => {
    gateway = await startTestGateway();
    const key = await gateway.deps.db.query<{ id: string }>("SELECT id FROM api_keys WHERE name = 'bootstrap'");
    keyId = Number(key.rows[0]!.id);
    await gateway.deps.db.query('UPDATE api_keys SET rate_limit_5h = 5000000 WHERE id = $1', [keyId]);
    otherKey = await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId: 1, name: 'second' });
    await settleUsageEvents(gateway.deps.db, [
      usage({ startedAt: now - 2 * HOUR }),
      usage({ model: 'claude-sonnet-4-5', protocol: 'messages', credits: 3_000, startedAt: now - HOUR }),
      usage({ apiKeyId: otherKey.id, credits: 500, status: 'aborted', stream: true }),
      usage({ credits: 7_000, startedAt: now - 3 * 24 * HOUR }),
      usage({ credits: 9_000, startedAt: now - 40 * 24 * HOUR }),
    ]);
    member = await session('member@example.test', 'member');
    operator = await session('operator@example.test', 'operator');
  });

  afterAll(async () => {
    await gateway.close();
  });

  describe('account additions', () => {
    it('sums usage per UTC day by model and by key in PostgreSQL, with today / 7 d / 30 d totals', async () => {
      const { status, body } = await call('GET', '/api/v1/me/usage/daily?days=30', { key: gateway.key });
      expect(status).toBe(200);
      const today = new Date(now).toISOString().slice(0, 10);
      const byModel = (body.by_model as Json[]).filter(
        (p) => p.day === today || new Date(now - 2 * HOUR).toISOString().slice(0, 10) === p.day,
      );
      const sum = (points: Json[], field: string) => points.reduce((total, p) => total + Number(p[field]), 0);
      expect(
        sum(
          byModel.filter((p) => p.model === 'claude-sonnet-4-5'),
          'credits',
        ),
      ).toBe(3_000);
      expect(sum(body.by_model as Json[], 'credits')).toBe(1_000 + 3_000 + 500 + 7_000);
      expect(sum(body.by_key as Json[], 'credits')).toBe(1_000 + 3_000 + 500 + 7_000);
      expect(
        sum(
          (body.by_key as Json[]).filter((p) => p.api_key_id === otherKey.id),
          'requests',
        ),
      ).toBe(1);
      const totals = body.totals as Record<string, Json>;
      expect(totals.last_7d).toMatchObject({ requests: 4, credits: 11_500, cost: 0.0115 });
      expect(totals.last_30d).toMatchObject({ requests: 4, credits: 11_500 });
      expect(Number(totals.today!.credits)).toBeLessThanOrEqual(4_500);
      const point = (body.by_model as Json[])[0]!;
      expect(point).toEqual(expect.objectContaining({ requests: expect.any(Number), total_tokens: 120 * Number(point.requests) }));
    });

    it.each(['days=0', 'days=91', 'days=x'])('refuses %s naming days', async (query) => {
      const { status, body } = await call('GET', `/api/v1/me/usage/daily?${query}`, { key: gateway.key });
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ param: 'days' });
    });

    it("gives each key's spend windows with limit, remaining and when the oldest charge leaves", async () => {
      const { body } = await call('GET', '/api/v1/me/key-windows', { as: member });
      const windows = (body.data as Array<{ api_key_id: number; windows: Json[] }>).find((k) => k.api_key_id === keyId)!.windows;
      expect(windows[0]).toEqual({
        name: '5h',
        limit: 5,
        spent: 0.004,
        remaining: 4.996,
        resets_at: new Date(now - 2 * HOUR + 5 * HOUR).toISOString(),
      });
      expect(windows[1]).toMatchObject({ name: '1d', limit: 0, spent: 0.004, remaining: null });
      expect(windows[2]).toMatchObject({ name: '7d', spent: 0.011 });
    });

    it('filters usage rows by protocol and status, and exports the filtered rows as CSV', async () => {
      const messages = await call('GET', '/api/v1/me/usage?protocol=messages', { key: gateway.key });
      expect((messages.body.data as Json[]).map((r) => r.model)).toEqual(['claude-sonnet-4-5']);
      const aborted = await call('GET', '/api/v1/me/usage?status=aborted', { key: gateway.key });
      expect((aborted.body.data as Json[]).map((r) => r.api_key_id)).toEqual([otherKey.id]);
      expect((await call('GET', '/api/v1/me/usage?protocol=smtp', { key: gateway.key })).body.error).toMatchObject({ param: 'protocol' });
      const csv = await call('GET', `/api/v1/me/usage/export?api_key_id=${keyId}`, { as: member });
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      const lines = csv.text.trim().split('\r\n');
      expect(lines[0]!.split(',')).toEqual(
        expect.arrayContaining(['request_id', 'model', 'cache_read_tokens', 'reasoning_tokens', 'cost']),
      );
      expect(lines).toHaveLength(1 + 4);
    });

    it('lists the routing groups a key can be created in', async () => {
      const { body } = await call('GET', '/api/v1/me/routing-groups', { as: member });
      expect((body.data as Json[]).map((g) => g.name)).toContain('default');
    });

    it('adds prices and kind to the available models', async () => {
      const { body } = await call('GET', '/api/v1/me/available-models', { key: gateway.key });
      const sonnet = (body.data as Json[]).find((m) => m.id === 'claude-sonnet-4-5')!;
      expect(sonnet).toMatchObject({
        kind: 'chat',
        pricing: { currency: 'USD', input_per_million_tokens: 3, output_per_million_tokens: 15 },
      });
    });
  });

  describe('operator API', () => {
    it('is refused to members, to API keys and to a write without the CSRF token', async () => {
      expect((await call('GET', '/api/v1/operator/accounts', { as: member })).status).toBe(403);
      expect((await call('GET', '/api/v1/operator/accounts', { key: gateway.key })).status).toBe(401);
      expect((await call('GET', '/api/v1/operator/accounts')).status).toBe(401);
      const noCsrf = await call('POST', '/api/v1/operator/accounts', { as: operator, csrf: false, body: { name: 'x', tier: 'free' } });
      expect(noCsrf.status).toBe(403);
      expect((await call('GET', '/api/v1/operator/me', { as: operator })).status).toBe(200);
    });

    it('records a top-up and an adjustment with their reason in the ledger, and admission sees the new balance', async () => {
      const before = (await call('GET', '/api/v1/me/account', { key: gateway.key })).body.balance_credits as number;
      const topup = await call('POST', `/api/v1/operator/accounts/${gateway.accountId}/ledger`, {
        as: operator,
        body: { kind: 'topup', amount: 12.5, reason: 'invoice 42' },
      });
      expect(topup.status).toBe(201);
      expect(topup.body).toMatchObject({ kind: 'topup', balance_after_credits: before + 12_500_000 });
      const adjustment = await call('POST', `/api/v1/operator/accounts/${gateway.accountId}/ledger`, {
        as: operator,
        body: { kind: 'adjustment', amount: -0.5, reason: 'correction' },
      });
      expect(adjustment.body).toMatchObject({ balance_after_credits: before + 12_000_000 });
      const transactions = await call('GET', '/api/v1/me/billing/transactions', { key: gateway.key });
      const rows = transactions.body.data as Json[];
      expect(rows.slice(0, 2).map((r) => [r.kind, r.amount_credits])).toEqual([
        ['adjustment', -500_000],
        ['topup', 12_500_000],
      ]);
      expect(String(rows[1]!.description)).toMatch(/^invoice 42 \(operator user \d+\)$/);
      // The accounting headers come from the Redis wallet cache: it moved with the ledger.
      const models = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(models.status).toBe(200);
    });

    it.each([
      [{ kind: 'topup', amount: -1, reason: 'r' }, 'amount'],
      [{ kind: 'topup', amount: 0, reason: 'r' }, 'amount'],
      [{ kind: 'topup', amount: 1 }, 'reason'],
      [{ kind: 'gift', amount: 1, reason: 'r' }, 'kind'],
    ])('refuses ledger body %j naming %s', async (body, param) => {
      const answer = await call('POST', `/api/v1/operator/accounts/${gateway.accountId}/ledger`, { as: operator, body });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ param });
    });

    it('answers 404 for an unknown account', async () => {
      expect(
        (await call('POST', '/api/v1/operator/accounts/999999/ledger', { as: operator, body: { kind: 'topup', amount: 1, reason: 'r' } }))
          .status,
      ).toBe(404);
      expect((await call('PATCH', '/api/v1/operator/accounts/999999', { as: operator, body: { tier: 'pro' } })).status).toBe(404);
    });

    it('creates an account and changes its tier and concurrency', async () => {
      const created = await call('POST', '/api/v1/operator/accounts', {
        as: operator,
        body: { name: 'newco', tier: 'free', organization: true },
      });
      expect(created.status).toBe(201);
      const id = created.body.id as number;
      expect(
        (await call('PATCH', `/api/v1/operator/accounts/${id}`, { as: operator, body: { tier: 'enterprise', concurrency_cap: 700 } }))
          .status,
      ).toBe(200);
      const list = await call('GET', '/api/v1/operator/accounts', { as: operator });
      expect((list.body.data as Json[]).find((a) => a.id === id)).toMatchObject({
        kind: 'organization',
        tier: 'enterprise',
        concurrency_cap: 700,
        balance: 0,
      });
      expect((await call('PATCH', `/api/v1/operator/accounts/${id}`, { as: operator, body: { concurrency_cap: null } })).status).toBe(200);
      const after = await call('GET', '/api/v1/operator/accounts', { as: operator });
      expect((after.body.data as Json[]).find((a) => a.id === id)).toMatchObject({ concurrency_cap: 500, custom_concurrency_cap: null });
    });

    it('adds a group and an upstream account, edits and disables it, and tests reachability', async () => {
      const group = await call('POST', '/api/v1/operator/groups', { as: operator, body: { name: 'ops-group', family: 'openai' } });
      expect(group.status).toBe(201);
      expect((await call('POST', '/api/v1/operator/groups', { as: operator, body: { name: 'ops-group' } })).status).toBe(409);
      const bad = await call('POST', '/api/v1/operator/upstreams', {
        as: operator,
        body: { group_id: group.body.id, protocol: 'chat', base_url: 'ftp://x', api_key: 'k', models: ['*'] },
      });
      expect(bad.body.error).toMatchObject({ param: 'base_url' });
      const added = await call('POST', '/api/v1/operator/upstreams', {
        as: operator,
        body: {
          group_id: group.body.id,
          protocol: 'chat',
          base_url: gateway.sim.url,
          api_key: 'sim-key',
          models: ['gpt-4.1'],
          priority: 3,
        },
      });
      expect(added.status).toBe(201);
      const id = added.body.id as number;
      expect(
        (await call('PATCH', `/api/v1/operator/upstreams/${id}`, { as: operator, body: { weight: 7, status: 'disabled' } })).status,
      ).toBe(200);
      const list = await call('GET', '/api/v1/operator/upstreams', { as: operator });
      const row = (list.body.data as Json[]).find((u) => u.id === id)!;
      expect(row).toMatchObject({ group_name: 'ops-group', priority: 3, weight: 7, status: 'disabled', models: ['gpt-4.1'] });
      expect(JSON.stringify(list.body)).not.toContain('sim-key');
      const reachable = await call('POST', `/api/v1/operator/upstreams/${id}/test`, { as: operator });
      expect(reachable.body).toMatchObject({ reachable: true });
      // A base URL nothing answers at is refused before it is saved; `verify: false` saves it anyway.
      const refused = await call('PATCH', `/api/v1/operator/upstreams/${id}`, { as: operator, body: { base_url: 'http://127.0.0.1:9' } });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({
        param: 'base_url',
        message: 'verification failed: cannot reach http://127.0.0.1:9: connection refused',
      });
      await call('PATCH', `/api/v1/operator/upstreams/${id}`, { as: operator, body: { base_url: 'http://127.0.0.1:9', verify: false } });
      const unreachable = await call('POST', `/api/v1/operator/upstreams/${id}/test`, { as: operator });
      expect(unreachable.body).toMatchObject({ reachable: false, http_status: null });
      expect((await call('PATCH', '/api/v1/operator/upstreams/999999', { as: operator, body: { weight: 2 } })).status).toBe(404);
    });

    it('lists the catalog', async () => {
      const { body } = await call('GET', '/api/v1/operator/catalog', { as: operator });
      expect((body.data as Json[]).map((m) => m.id)).toContain('gpt-5');
    });
  });
});
