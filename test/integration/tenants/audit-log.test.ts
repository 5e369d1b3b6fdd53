/**
 * Issue 21, audit log: every change to keys, money, grants, groups, upstream accounts, the
 * catalog and the request-bodies settings, and every console login (success and failure), is recorded with who, when, from which
 * address and what changed (before/after, never a secret). The account reads its own events at
 * /api/v1/me/audit (filters, cursor paging), operators everything at /api/v1/operator/audit, and
 * the table is append-only in the database itself (UPDATE, DELETE and TRUNCATE are refused).
 */
import { createAccount } from '../../../src/process/seed';
import { startTestGateway, type TestGateway } from '../../support/gateway';
import { consoleLogin } from '../../support/console-login';

type Json = Record<string, unknown>;
interface Caller {
  cookie?: string;
  csrf?: string;
  key?: string;
}

describe('audit log', () => {
  let gateway: TestGateway;
  let operator: Caller;
  let owner: Caller;
  let bootstrapKeyId: number;
  let otherAccount: number;

  async function call(as: Caller, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    const headers: Record<string, string> = {};
    if (as.key) headers['x-api-key'] = as.key;
    if (as.cookie) Object.assign(headers, { cookie: as.cookie, 'x-csrf-token': as.csrf! });
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${gateway.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Json };
  }
  const events = async (as: Caller, path: string) => {
    const answer = await call(as, 'GET', path);
    expect(answer.status).toBe(200);
    return answer.body.data as Json[];
  };

  beforeAll(async () => {
    gateway = await startTestGateway();
    owner = { key: gateway.key };
    bootstrapKeyId = Number((await gateway.deps.db.query<{ id: string }>('SELECT id FROM api_keys ORDER BY id LIMIT 1')).rows[0]!.id);
    const login = await consoleLogin(gateway.deps.db, gateway.accountId, 'ops@example.test', 'operator');
    operator = { cookie: login.cookie, csrf: login.csrf };
    otherAccount = await createAccount(gateway.deps.db, { name: 'someone else', tier: 'free' });
  }, 60_000);
  afterAll(async () => {
    await gateway.close();
  });

  it('records the whole key lifecycle with the acting key, the address and before/after, never a secret', async () => {
    const created = await call(owner, 'POST', '/api/v1/keys', { name: 'audited', group_id: 'default', allowed_models: ['gpt-4.1'] });
    const id = created.body.id as number;
    const secrets = [created.body.key as string];
    await call(owner, 'PUT', `/api/v1/keys/${id}`, { name: 'renamed', quota: 3 });
    secrets.push((await call(owner, 'POST', `/api/v1/keys/${id}/rotate`)).body.key as string);
    expect((await call(owner, 'GET', `/api/v1/keys/${id}/reveal`)).status).toBe(200);
    await call(owner, 'PUT', `/api/v1/keys/${id}`, { status: 'disabled' });
    await call(owner, 'DELETE', `/api/v1/keys/${id}`);

    const audit = await events(owner, `/api/v1/me/audit?target_type=api_key&target_id=${id}`);
    expect(audit.map((e) => e.action)).toEqual(['key.delete', 'key.disable', 'key.reveal', 'key.rotate', 'key.update', 'key.create']);
    for (const event of audit) {
      expect(event).toMatchObject({
        object: 'audit_event',
        account_id: gateway.accountId,
        actor: { type: 'api_key', id: bootstrapKeyId },
        target: { type: 'api_key', id: String(id) },
      });
      expect(String(event.address)).toMatch(/127\.0\.0\.1|::1/);
      expect(Date.parse(String(event.created_at))).not.toBeNaN();
    }
    const update = audit.find((e) => e.action === 'key.update')!;
    expect(update.before).toMatchObject({ name: 'audited', quota: 0, allowed_models: ['gpt-4.1'] });
    expect(update.after).toMatchObject({ name: 'renamed', quota: 3 });
    expect(audit.find((e) => e.action === 'key.disable')!.after).toMatchObject({ status: 'disabled' });
    const text = JSON.stringify(audit);
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(text).not.toContain(secret.slice(7, 30));
    }
  });

  it('records money, group, grant, upstream and catalog changes made by an operator; the operator listing shows all, members only their own', async () => {
    for (const [kind, amount] of [
      ['topup', 5],
      ['refund', 1.5],
      ['adjustment', -0.25],
    ] as const) {
      expect(
        (await call(operator, 'POST', `/api/v1/operator/accounts/${gateway.accountId}/ledger`, { kind, amount, reason: `test ${kind}` }))
          .status,
      ).toBe(201);
    }
    const group = await call(operator, 'POST', '/api/v1/operator/groups', { name: 'audited-group', visibility: 'private' });
    const groupId = group.body.id as number;
    await call(operator, 'PUT', `/api/v1/operator/groups/${groupId}/grants/${otherAccount}`);
    await call(operator, 'DELETE', `/api/v1/operator/groups/${groupId}/grants/${otherAccount}`);
    await call(operator, 'PATCH', `/api/v1/operator/groups/${groupId}`, { visibility: 'public' });
    const upstream = await call(operator, 'POST', '/api/v1/operator/upstreams', {
      group_id: groupId,
      protocol: 'chat',
      base_url: gateway.sim.url,
      api_key: 'sk-upstream-very-secret',
      models: ['gpt-4.1'],
      verify: false,
    });
    await call(operator, 'PATCH', `/api/v1/operator/upstreams/${String(upstream.body.id)}`, {
      weight: 4,
      api_key: 'sk-upstream-other-secret',
      verify: false,
    });
    expect((await call(operator, 'POST', '/api/v1/operator/catalog/gpt-4.1/aliases', { alias: 'audited-alias' })).status).toBe(200);

    const money = await events(owner, '/api/v1/me/audit?action=money.');
    expect(money.map((e) => e.action)).toEqual(['money.adjustment', 'money.refund', 'money.topup']);
    expect(money[1]).toMatchObject({
      actor: { type: 'console_user', label: 'ops@example.test' },
      after: { amount_credits: 1_500_000, reason: 'test refund' },
    });

    const all = await events(operator, '/api/v1/operator/audit?limit=100');
    const actions = all.map((e) => e.action);
    for (const action of [
      'group.create',
      'grant.create',
      'grant.revoke',
      'group.update',
      'upstream.create',
      'upstream.update',
      'catalog.alias_add',
      'money.topup',
    ])
      expect(actions).toContain(action);
    const upstreamUpdate = all.find((e) => e.action === 'upstream.update')!;
    expect(upstreamUpdate).toMatchObject({ before: { weight: 1 }, after: { weight: 4, credential_changed: true } });
    expect(JSON.stringify(all)).not.toMatch(/sk-upstream-(very|other)-secret/);
    expect(all.find((e) => e.action === 'catalog.alias_add')!.after).toMatchObject({ id: 'gpt-4.1' });

    // The grant events belong to the other account: the owner does not see them, the operator filters by account.
    expect((await events(owner, '/api/v1/me/audit?action=grant.')).length).toBe(0);
    expect((await events(operator, `/api/v1/operator/audit?account_id=${otherAccount}`)).map((e) => e.action)).toEqual([
      'grant.revoke',
      'grant.create',
    ]);
    expect((await call(owner, 'GET', '/api/v1/operator/audit')).status).toBe(401);
  });

  it('records the request-bodies settings: the operator allowing, the account keeping, a key overriding, each with before and after', async () => {
    const accountPath = '/api/v1/me/request-bodies';
    const keyPath = `/api/v1/me/keys/${bootstrapKeyId}/request-bodies`;
    // Refused (the operator has not allowed it yet): nothing changed, nothing recorded.
    expect((await call(owner, 'PUT', accountPath, { keep: true })).status).toBe(403);
    expect((await call(owner, 'PUT', keyPath, { keep: true })).status).toBe(403);
    expect((await call(operator, 'PUT', `/api/v1/operator/accounts/${gateway.accountId}/request-bodies`, { allowed: true })).status).toBe(
      200,
    );
    expect((await call(owner, 'PUT', accountPath, { keep: true })).status).toBe(200);
    expect((await call(owner, 'PUT', accountPath, { keep: true })).status).toBe(200);
    expect((await call(owner, 'PUT', keyPath, { keep: false })).status).toBe(200);
    expect((await call(owner, 'PUT', keyPath, { keep: null })).status).toBe(200);

    const accountEvents = await events(owner, `/api/v1/me/audit?target_type=account&target_id=${gateway.accountId}`);
    expect(accountEvents.map(({ action, actor, before, after }) => ({ action, actor: (actor as Json).type, before, after }))).toEqual([
      { action: 'account.update', actor: 'api_key', before: { keep_request_bodies: false }, after: { keep_request_bodies: true } },
      {
        action: 'account.update',
        actor: 'console_user',
        before: { request_bodies_allowed: false, keep_request_bodies: false },
        after: { request_bodies_allowed: true, keep_request_bodies: false },
      },
    ]);
    expect(accountEvents[0]).toMatchObject({
      account_id: gateway.accountId,
      actor: { id: bootstrapKeyId },
      target: { type: 'account', id: String(gateway.accountId) },
    });
    expect(String(accountEvents[0]!.address)).toMatch(/127\.0\.0\.1|::1/);
    expect(accountEvents[1]).toMatchObject({ actor: { label: 'ops@example.test' } });

    const keyEvents = await events(owner, `/api/v1/me/audit?target_type=api_key&target_id=${bootstrapKeyId}`);
    expect(keyEvents.map(({ action, before, after }) => ({ action, before, after }))).toEqual([
      { action: 'key.update', before: { keep_request_bodies: false }, after: { keep_request_bodies: null } },
      { action: 'key.update', before: { keep_request_bodies: null }, after: { keep_request_bodies: false } },
    ]);
  });

  it('records console logins, failed ones included, with the address', async () => {
    const login = (password: string) =>
      fetch(`${gateway.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ops@example.test', password }),
      });
    expect((await login('wrong password')).status).toBe(401);
    expect((await login('a long password')).status).toBe(200);
    await login('nobody knows');
    const logins = await events(operator, '/api/v1/operator/audit?action=console.');
    expect(logins.slice(0, 3).map((e) => e.action)).toEqual(['console.login_failed', 'console.login', 'console.login_failed']);
    expect(logins[1]).toMatchObject({ account_id: gateway.accountId, actor: { type: 'console_user', label: 'ops@example.test' } });
    expect(logins[2]).toMatchObject({ actor: { type: 'anonymous', label: 'ops@example.test' }, after: { reason: 'wrong password' } });
    expect(String(logins[1]!.address)).toMatch(/127\.0\.0\.1|::1/);
    expect(JSON.stringify(logins)).not.toContain('a long password');
  });

  it('pages with a cursor and validates its filters', async () => {
    const first = await call(owner, 'GET', '/api/v1/me/audit?limit=2');
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    const second = await call(owner, 'GET', `/api/v1/me/audit?limit=2&cursor=${String(first.body.next_cursor)}`);
    const ids = [...(first.body.data as Json[]), ...(second.body.data as Json[])].map((e) => e.id as number);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(4);
    expect((await call(owner, 'GET', '/api/v1/me/audit?actor_type=robot')).body.error).toMatchObject({ param: 'actor_type' });
    expect((await call(owner, 'GET', '/api/v1/me/audit?cursor=bm9wZQ')).body.error).toMatchObject({ param: 'cursor' });
  });

  it('is append-only for the application database role: UPDATE, DELETE and TRUNCATE are refused', async () => {
    const db = gateway.deps.db;
    const before = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM audit_events')).rows[0]!.n);
    expect(before).toBeGreaterThan(0);
    await expect(db.query("UPDATE audit_events SET action = 'forged'")).rejects.toMatchObject({ code: '42501' });
    await expect(db.query('DELETE FROM audit_events')).rejects.toMatchObject({ code: '42501' });
    await expect(db.query('TRUNCATE audit_events')).rejects.toMatchObject({ code: '42501' });
    expect(Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM audit_events')).rows[0]!.n)).toBe(before);
    expect((await db.query("SELECT 1 FROM audit_events WHERE action = 'forged'")).rowCount).toBe(0);
  });
});
