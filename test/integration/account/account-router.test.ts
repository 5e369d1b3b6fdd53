/**
 * The account surface on real PostgreSQL, behind the real management auth (key and console
 * session): account context, usage rows (pagination, every filter, the alias), billing
 * transactions, available models, validation errors naming their parameter, account isolation.
 */
import { randomBytes } from 'node:crypto';
import { createAccountRouter } from '../../../src/account/account-router';
import { createConsoleSession, SESSION_COOKIE } from '../../../src/auth/console-session';
import { createKeyAuthenticator, type GatewayKeyAuthenticator } from '../../../src/auth/create-key-authenticator';
import { createManagementAuth } from '../../../src/auth/management-auth';
import { applyLedgerEntry } from '../../../src/db/repositories/ledger';
import { settleUsageEvents } from '../../../src/billing/settle-usage-events';
import type { UsageEvent } from '../../../src/billing/usage-event';
import { addUpstreamAccount, createAccount, createConsoleUser, createGroup, topUp } from '../../../src/process/seed';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { startMiniApp, type MiniApp } from '../../support/mini-app';

type Json = Record<string, unknown>;
interface ListBody {
  object: string;
  data: Json[];
  has_more: boolean;
  next_cursor: string | null;
}

const BASE = Date.UTC(2026, 0, 10, 12, 0, 0);
const HOUR = 3_600_000;

describe('account router', () => {
  let deps: TestDependencies;
  let authenticator: GatewayKeyAuthenticator;
  let app: MiniApp;
  // Account A: a user account with three keys, a console user, 25 usage rows.
  let accountA: number;
  let keyA1: { id: number; secret: string };
  let keyA2: { id: number; secret: string };
  let keyA3: { id: number; secret: string };
  let sessionA: string;
  let userA: number;
  const eventsA: UsageEvent[] = [];
  // Account B: an organisation, nothing routable, 3 usage rows.
  let accountB: number;
  let keyB: { id: number; secret: string };

  const event = (accountId: number, apiKeyId: number, index: number, overrides: Partial<UsageEvent> = {}): UsageEvent => ({
    requestId: `req_${randomBytes(12).toString('hex')}`,
    accountId,
    apiKeyId,
    model: index % 4 === 0 ? 'gpt-5' : 'claude-sonnet-4-5',
    protocol: index % 2 === 0 ? 'chat' : 'messages',
    upstreamAccountId: null,
    promptTokens: 1_000 + index,
    completionTokens: 200 + index,
    cacheReadTokens: 300,
    cacheWriteTokens: 50,
    reasoningTokens: 40,
    images: 0,
    videoSeconds: 0,
    credits: 10_000 + index,
    stream: index % 2 === 1,
    status: index === 7 ? 'aborted' : 'ok',
    startedAt: BASE + index * HOUR,
    ...overrides,
  });

  beforeAll(async () => {
    deps = await createTestDependencies();
    authenticator = createKeyAuthenticator(deps);
    app = await startMiniApp(createAccountRouter(deps, { managementAuth: createManagementAuth(deps, authenticator) }));

    const everything = await createGroup(deps.db, { name: 'default', family: null });
    const anthropic = await createGroup(deps.db, { name: 'anthropic', family: 'anthropic' });
    const google = await createGroup(deps.db, { name: 'google', family: 'google' });
    const empty = await createGroup(deps.db, { name: 'empty', family: null });
    const upstream = { baseUrl: 'http://127.0.0.1:9', apiKey: 'sim' };
    await addUpstreamAccount(deps.db, deps.crypto, { ...upstream, groupId: everything, protocol: 'chat', models: ['gpt-4.1'] });
    await addUpstreamAccount(deps.db, deps.crypto, { ...upstream, groupId: everything, protocol: 'messages', models: ['*'] });
    const disabled = await addUpstreamAccount(deps.db, deps.crypto, {
      ...upstream,
      groupId: everything,
      protocol: 'generate-content',
      models: ['*'],
    });
    await deps.db.query("UPDATE upstream_accounts SET status = 'disabled' WHERE id = $1", [disabled]);
    await addUpstreamAccount(deps.db, deps.crypto, { ...upstream, groupId: anthropic, protocol: 'messages', models: ['claude-haiku-4-5'] });
    await addUpstreamAccount(deps.db, deps.crypto, { ...upstream, groupId: google, protocol: 'generate-content', models: ['*'] });

    accountA = await createAccount(deps.db, { name: 'alice', tier: 'pro' });
    await topUp(deps.db, accountA, 50_000_000, 'stripe-1', 'card top-up');
    keyA1 = await insertApiKey(deps.db, deps.crypto, { accountId: accountA, groupId: everything, name: 'first' });
    keyA2 = await insertApiKey(deps.db, deps.crypto, { accountId: accountA, groupId: everything, name: 'second' });
    keyA3 = await insertApiKey(deps.db, deps.crypto, { accountId: accountA, groupId: anthropic, name: 'family' });
    // A revoked key routes nothing: its group must not count.
    const revoked = await insertApiKey(deps.db, deps.crypto, { accountId: accountA, groupId: google, name: 'old' });
    await deps.db.query("UPDATE api_keys SET status = 'revoked' WHERE id = $1", [revoked.id]);
    userA = await createConsoleUser(deps.db, { accountId: accountA, email: 'alice@example.com', password: 'correct horse battery' });
    sessionA = (await createConsoleSession(deps.db, userA, Date.now())).token;
    for (let index = 0; index < 25; index += 1) eventsA.push(event(accountA, [keyA1, keyA2, keyA3][index % 3]!.id, index));
    // One settlement each: rows inside a batch are numbered in request-id order, not event order.
    for (const usage of eventsA) await settleUsageEvents(deps.db, [usage]);
    const client = await deps.db.connect();
    await client.query('BEGIN');
    await applyLedgerEntry(client, {
      accountId: accountA,
      kind: 'refund',
      amountCredits: 1_500_000,
      reference: 'refund-1',
      description: 'goodwill',
    });
    await applyLedgerEntry(client, {
      accountId: accountA,
      kind: 'adjustment',
      amountCredits: -250_000,
      reference: null,
      description: 'correction',
    });
    await client.query('COMMIT');
    client.release();

    accountB = await createAccount(deps.db, { name: 'acme', tier: 'enterprise', organization: true, concurrencyCap: 1_000 });
    await topUp(deps.db, accountB, 7_000_000);
    keyB = await insertApiKey(deps.db, deps.crypto, { accountId: accountB, groupId: empty, name: 'org key' });
    for (const index of [0, 1, 2]) await settleUsageEvents(deps.db, [event(accountB, keyB.id, index)]);
  });

  afterAll(async () => {
    await app.close();
    await authenticator.close();
    await deps.close();
  });

  const get = async (path: string, auth: { key?: string; session?: string } = { key: keyA1.secret }) => {
    const headers: Record<string, string> = {};
    if (auth.key) headers['x-api-key'] = auth.key;
    if (auth.session) headers.cookie = `${SESSION_COOKIE}=${auth.session}`;
    const response = await fetch(`${app.url}${path}`, { headers });
    return { status: response.status, body: (await response.json()) as Json & ListBody };
  };

  const expectInvalid = async (path: string, param: string) => {
    const { status, body } = await get(path);
    expect(status).toBe(400);
    const error = body.error as Json;
    expect(error).toMatchObject({ type: 'invalid_request_error', param });
    expect(String(error.message)).toMatch(new RegExp(`^${param}\\b`));
  };

  describe('GET /api/v1/me/account', () => {
    it('gives the account context, tier, concurrency cap and balance in USD and credits (key auth)', async () => {
      const { status, body } = await get('/api/v1/me/account');
      expect(status).toBe(200);
      const spent = eventsA.reduce((sum, e) => sum + e.credits, 0);
      const balance = 50_000_000 - spent + 1_500_000 - 250_000;
      expect(body).toMatchObject({
        object: 'account',
        id: accountA,
        name: 'alice',
        kind: 'user',
        organization: null,
        tier: 'pro',
        concurrency_cap: 25,
        balance_credits: balance,
        balance: balance / 1_000_000,
        held_credits: 0,
        held: 0,
        currency: 'USD',
        authenticated_via: 'key',
        key: { id: keyA1.id, name: 'first' },
        user: null,
      });
      expect(String(body.balance)).toMatch(/^\d+\.\d{1,6}$/);
    });

    it('names the console user with session auth', async () => {
      const { status, body } = await get('/api/v1/me/account', { session: sessionA });
      expect(status).toBe(200);
      expect(body).toMatchObject({
        id: accountA,
        authenticated_via: 'session',
        user: { id: userA, email: 'alice@example.com' },
        key: null,
      });
    });

    it('shows an organisation wallet and a custom cap', async () => {
      const { body } = await get('/api/v1/me/account', { key: keyB.secret });
      expect(body).toMatchObject({
        id: accountB,
        kind: 'organization',
        organization: { id: accountB, name: 'acme' },
        tier: 'enterprise',
        concurrency_cap: 1_000,
        balance_credits: 7_000_000 - (10_000 + 10_001 + 10_002),
      });
    });

    it('refuses a caller without credentials', async () => {
      const { status, body } = await get('/api/v1/me/account', {});
      expect(status).toBe(401);
      expect(body.error).toMatchObject({ type: 'authentication_error' });
    });
  });

  describe('GET /api/v1/me/usage', () => {
    const requestIdsNewestFirst = () => [...eventsA].reverse().map((e) => e.requestId);

    it('lists rows newest first with every figure', async () => {
      const { status, body } = await get('/api/v1/me/usage?limit=1');
      expect(status).toBe(200);
      const last = eventsA[24]!;
      expect(body.object).toBe('list');
      expect(body.data).toEqual([
        {
          object: 'usage',
          id: expect.any(Number),
          request_id: last.requestId,
          api_key_id: last.apiKeyId,
          model: last.model,
          protocol: last.protocol,
          prompt_tokens: last.promptTokens,
          completion_tokens: last.completionTokens,
          total_tokens: last.promptTokens + last.completionTokens,
          cache_read_tokens: 300,
          cache_write_tokens: 50,
          reasoning_tokens: 40,
          images: 0,
          video_seconds: 0,
          duration_ms: null,
          ttfb_ms: null,
          credits: last.credits,
          cost: last.credits / 1_000_000,
          stream: last.stream,
          status: 'ok',
          started_at: new Date(last.startedAt).toISOString(),
          created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        },
      ]);
      expect(body.has_more).toBe(true);
    });

    it('pages through every row exactly once with the cursor (default page size 20)', async () => {
      const first = await get('/api/v1/me/usage');
      expect(first.body.data).toHaveLength(20);
      expect(first.body.has_more).toBe(true);
      const second = await get(`/api/v1/me/usage?cursor=${first.body.next_cursor ?? ''}`);
      expect(second.body.data).toHaveLength(5);
      expect(second.body).toMatchObject({ has_more: false, next_cursor: null });
      expect([...first.body.data, ...second.body.data].map((row) => row.request_id)).toEqual(requestIdsNewestFirst());
    });

    it('pages with a small limit and the alias /api/v1/usage gives the same rows', async () => {
      const seen: unknown[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const path: string = `/api/v1/usage?limit=7${cursor ? `&cursor=${cursor}` : ''}`;
        const { body } = await get(path);
        seen.push(...body.data.map((row) => row.request_id));
        cursor = body.next_cursor;
        pages += 1;
      } while (cursor !== null);
      expect(pages).toBe(4);
      expect(seen).toEqual(requestIdsNewestFirst());
    });

    it('filters by key, model and time, together and with pagination', async () => {
      const byKey = await get(`/api/v1/me/usage?api_key_id=${keyA2.id}&limit=100`);
      expect(byKey.body.data.map((row) => row.request_id)).toEqual(
        [...eventsA]
          .reverse()
          .filter((e) => e.apiKeyId === keyA2.id)
          .map((e) => e.requestId),
      );

      const byModel = await get('/api/v1/me/usage?model=gpt-5&limit=100');
      expect(byModel.body.data.map((row) => row.request_id)).toEqual(
        [...eventsA]
          .reverse()
          .filter((e) => e.model === 'gpt-5')
          .map((e) => e.requestId),
      );

      const from = new Date(BASE + 5 * HOUR).toISOString();
      const to = Math.floor((BASE + 15 * HOUR) / 1000); // Unix seconds work too
      const byTime = await get(`/api/v1/me/usage?from=${from}&to=${to}&limit=100`);
      expect(byTime.body.data.map((row) => row.request_id)).toEqual(
        eventsA
          .slice(5, 15)
          .reverse()
          .map((e) => e.requestId),
      );

      const wanted = [...eventsA]
        .reverse()
        .filter((e) => e.model === 'claude-sonnet-4-5' && e.apiKeyId === keyA1.id && e.startedAt >= BASE + 2 * HOUR);
      const combined: unknown[] = [];
      let cursor: string | null = null;
      do {
        const { body } = await get(
          `/api/v1/me/usage?model=claude-sonnet-4-5&api_key_id=${keyA1.id}&from=${new Date(BASE + 2 * HOUR).toISOString()}&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        );
        combined.push(...body.data.map((row) => row.request_id));
        cursor = body.next_cursor;
      } while (cursor !== null);
      expect(combined).toEqual(wanted.map((e) => e.requestId));
      expect(combined.length).toBeGreaterThan(2);
    });

    it("shows only the caller's account", async () => {
      const { body } = await get('/api/v1/me/usage?limit=100', { key: keyB.secret });
      expect(body.data).toHaveLength(3);
      expect(new Set(body.data.map((row) => row.api_key_id))).toEqual(new Set([keyB.id]));
      const foreignKey = await get(`/api/v1/me/usage?api_key_id=${keyA1.id}`, { key: keyB.secret });
      expect(foreignKey.body.data).toEqual([]);
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=abc', 'limit'],
      ['limit=1.5', 'limit'],
      ['limit=5&limit=6', 'limit'],
      ['api_key_id=abc', 'api_key_id'],
      ['api_key_id=0', 'api_key_id'],
      ['model=', 'model'],
      ['from=yesterday', 'from'],
      ['to=2026-13-45T99:00:00Z', 'to'],
      ['from=2026-01-02&to=2026-01-01', 'to'],
      ['cursor=bm90LWEtY3Vyc29y', 'cursor'],
    ])('refuses %s naming %s', async (query, param) => {
      await expectInvalid(`/api/v1/me/usage?${query}`, param);
    });
  });

  describe('GET /api/v1/me/billing/transactions', () => {
    it('pages through the ledger newest first, each row with the balance after it', async () => {
      const rows: Json[] = [];
      let cursor: string | null = null;
      do {
        const { status, body } = await get(
          `/api/v1/me/billing/transactions?kind=topup,refund,adjustment,charge&limit=10${cursor ? `&cursor=${cursor}` : ''}`,
        );
        expect(status).toBe(200);
        rows.push(...body.data);
        cursor = body.next_cursor;
      } while (cursor !== null);
      // top-up, 25 charges, refund, adjustment.
      expect(rows).toHaveLength(28);
      const oldestFirst = [...rows].reverse();
      let running = 0;
      for (const row of oldestFirst) {
        running += Number(row.amount_credits);
        expect(row.balance_after_credits).toBe(running);
        expect(row.balance_after).toBe(running / 1_000_000);
      }
      const account = await get('/api/v1/me/account');
      expect(account.body.balance_credits).toBe(running);
      expect(oldestFirst[0]).toMatchObject({
        kind: 'topup',
        amount_credits: 50_000_000,
        amount: 50,
        reference: 'stripe-1',
        description: 'card top-up',
      });
      const charge = oldestFirst.find((row) => row.kind === 'charge');
      expect(charge).toMatchObject({
        amount_credits: -eventsA[0]!.credits,
        reference: eventsA[0]!.requestId,
        api_key_id: eventsA[0]!.apiKeyId,
      });
    });

    it('lists top-ups, refunds and adjustments by default; per-request charges only when asked', async () => {
      const byDefault = await get('/api/v1/me/billing/transactions?limit=100');
      expect(byDefault.body.data.map((row) => row.kind)).toEqual(['adjustment', 'refund', 'topup']);
      const { body } = await get('/api/v1/me/billing/transactions?kind=topup,refund,adjustment');
      expect(body.data.map((row) => row.kind)).toEqual(['adjustment', 'refund', 'topup']);
      const charges = await get('/api/v1/me/billing/transactions?kind=charge&limit=100');
      expect(charges.body.data).toHaveLength(25);
    });

    it('refuses bad parameters and a usage cursor, naming them', async () => {
      await expectInvalid('/api/v1/me/billing/transactions?kind=gift', 'kind');
      await expectInvalid('/api/v1/me/billing/transactions?limit=1000', 'limit');
      const usage = await get('/api/v1/me/usage?limit=1');
      await expectInvalid(`/api/v1/me/billing/transactions?cursor=${usage.body.next_cursor ?? ''}`, 'cursor');
    });

    it("shows only the caller's account", async () => {
      const { body } = await get('/api/v1/me/billing/transactions?kind=topup,charge&limit=100', { key: keyB.secret });
      expect(body.data.map((row) => row.kind).sort()).toEqual(['charge', 'charge', 'charge', 'topup']);
    });
  });

  describe('GET /api/v1/me/available-models', () => {
    it("lists what the account's usable keys' groups can route now", async () => {
      const { status, body } = await get('/api/v1/me/available-models');
      expect(status).toBe(200);
      const byId = new Map(body.data.map((model) => [model.id, model]));
      // default group: messages '*' (family 1 natives) and chat gpt-4.1; anthropic group: haiku.
      expect([...byId.keys()].sort()).toEqual([
        'claude-haiku-4-5',
        'claude-haiku-5-5',
        'claude-opus-4-5',
        'claude-opus-5-5',
        'claude-sonnet-4-5',
        'gpt-4.1',
      ]);
      expect(byId.get('claude-haiku-4-5')).toMatchObject({ object: 'model', owned_by: 'anthropic', groups: ['anthropic', 'default'] });
      expect(byId.get('gpt-4.1')).toMatchObject({ groups: ['default'], context_window: 1_047_576 });
    });

    it('changes with the upstream accounts and keys, and is empty when nothing routes', async () => {
      await deps.db.query("UPDATE upstream_accounts SET status = 'active' WHERE protocol = 'generate-content'");
      const { body } = await get('/api/v1/me/available-models');
      expect(body.data.map((model) => model.id)).toEqual(
        expect.arrayContaining(['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.5-flash-image', 'veo-3']),
      );
      await deps.db.query("UPDATE upstream_accounts SET status = 'disabled' WHERE protocol = 'generate-content'");
      const none = await get('/api/v1/me/available-models', { key: keyB.secret });
      expect(none.body).toEqual({ object: 'list', data: [] });
    });
  });

  it('is free and not throttled: a free-tier account makes many concurrent calls', async () => {
    const free = await createAccount(deps.db, { name: 'free', tier: 'free' });
    const group = await createGroup(deps.db, { name: `free-${free}`, family: null });
    const key = await insertApiKey(deps.db, deps.crypto, { accountId: free, groupId: group, name: 'free key' });
    const statuses = await Promise.all(
      Array.from({ length: 30 }, (_, index) =>
        get(['/api/v1/me/account', '/api/v1/me/usage', '/api/v1/me/billing/transactions'][index % 3]!, { key: key.secret }).then(
          (r) => r.status,
        ),
      ),
    );
    expect(statuses).toEqual(Array.from({ length: 30 }, () => 200));
    const account = await get('/api/v1/me/account', { key: key.secret });
    expect(account.body).toMatchObject({ balance_credits: 0, concurrency_cap: 5 });
  });
});
