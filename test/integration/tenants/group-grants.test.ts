/**
 * Issue 21, finding 10 (any account can use any routing group): a private group is usable only by
 * the accounts an operator granted it to. The account's group list shows only what it may use;
 * creating or moving a key into another group answers 403 `permission_error` naming the group;
 * revoking a grant stops the account's keys in the group within 2 s on every API process (their
 * caches included), in the caller's protocol envelope, and the key's status says why.
 */
import { createAccount, topUp } from '../../../src/process/seed';
import { startTestGateway, type ApiInstance, type TestGateway } from '../../support/gateway';
import { consoleLogin } from '../../support/console-login';

type Json = Record<string, unknown>;
interface Caller {
  cookie: string;
  csrf: string;
}

describe('finding 10: routing group grants', () => {
  let gateway: TestGateway;
  let second: ApiInstance;
  let operator: Caller;
  let member: Caller;
  let memberAccount: number;
  let groupId: number;

  async function session(accountId: number, email: string, role?: 'operator'): Promise<Caller> {
    const login = await consoleLogin(gateway.deps.db, accountId, email, role);
    return { cookie: login.cookie, csrf: login.csrf };
  }

  async function call(as: Caller, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    const headers: Record<string, string> = { cookie: as.cookie, 'x-csrf-token': as.csrf };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${gateway.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Json };
  }

  const chat = async (url: string, secret: string) => {
    const response = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const messages = async (url: string, secret: string) => {
    const response = await fetch(`${url}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': secret, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const groupNames = async (as: Caller) => ((await call(as, 'GET', '/api/v1/me/routing-groups')).body.data as Json[]).map((g) => g.name);

  beforeAll(async () => {
    gateway = await startTestGateway();
    second = await gateway.startSecondInstance();
    operator = await session(gateway.accountId, 'operator@example.test', 'operator');
    memberAccount = await createAccount(gateway.deps.db, { name: 'tenant b', tier: 'pro' });
    await topUp(gateway.deps.db, memberAccount, 50_000_000);
    member = await session(memberAccount, 'member@example.test');
    const group = await call(operator, 'POST', '/api/v1/operator/groups', { name: 'tenant-a-only', family: null, visibility: 'private' });
    expect(group.status).toBe(201);
    groupId = group.body.id as number;
    const upstream = await call(operator, 'POST', '/api/v1/operator/upstreams', {
      group_id: groupId,
      protocol: 'chat',
      base_url: gateway.sim.url,
      api_key: 'sim-key',
      models: ['gpt-4.1'],
    });
    expect(upstream.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    await second.close();
    await gateway.close();
  });

  it('lists only the groups the account may use, and refuses a key in another group with 403 naming it', async () => {
    const names = await groupNames(member);
    expect(names).toContain('default');
    expect(names).not.toContain('tenant-a-only');
    const created = await call(member, 'POST', '/api/v1/keys', { name: 'intruder', group_id: 'tenant-a-only' });
    expect(created.status).toBe(403);
    expect(created.body.error).toMatchObject({ type: 'permission_error' });
    expect(String((created.body.error as Json).message)).toContain('tenant-a-only');
    const byId = await call(member, 'POST', '/api/v1/keys', { name: 'intruder', group_id: groupId });
    expect(byId.status).toBe(403);
    // Moving an existing key there is refused the same way, and the key stays where it was.
    const own = await call(member, 'POST', '/api/v1/keys', { name: 'own', group_id: 'default' });
    const moved = await call(member, 'PUT', `/api/v1/keys/${String(own.body.id)}`, { group_id: 'tenant-a-only' });
    expect(moved.status).toBe(403);
    expect(String((moved.body.error as Json).message)).toContain('tenant-a-only');
    expect((await call(member, 'GET', `/api/v1/keys/${String(own.body.id)}`)).body).toMatchObject({ group_name: 'default' });
  });

  it('a grant opens the group; revoking it stops the keys on both API processes within 2 s, and the key status says why', async () => {
    expect((await call(operator, 'PUT', `/api/v1/operator/groups/${groupId}/grants/${memberAccount}`)).status).toBe(201);
    expect((await call(operator, 'GET', `/api/v1/operator/groups/${groupId}/grants`)).body.data).toEqual([
      expect.objectContaining({ account_id: memberAccount }),
    ]);
    expect(await groupNames(member)).toContain('tenant-a-only');
    const created = await call(member, 'POST', '/api/v1/keys', { name: 'granted', group_id: 'tenant-a-only' });
    expect(created.status).toBe(201);
    const secret = created.body.key as string;
    // Both processes now hold the key in their caches.
    expect((await chat(gateway.url, secret)).status).toBe(200);
    expect((await chat(second.url, secret)).status).toBe(200);

    const revokedAt = Date.now();
    expect((await call(operator, 'DELETE', `/api/v1/operator/groups/${groupId}/grants/${memberAccount}`)).status).toBe(200);
    const stopped = async (url: string) => {
      for (;;) {
        const answer = await chat(url, secret);
        if (answer.status !== 200) return answer;
        if (Date.now() - revokedAt > 2_000) return answer;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    const [onFirst, onSecond] = await Promise.all([stopped(gateway.url), stopped(second.url)]);
    for (const answer of [onFirst, onSecond]) {
      expect(answer.status).toBe(403);
      expect(answer.body.error).toMatchObject({ type: 'permission_error' });
      expect(String((answer.body.error as Json).message)).toContain('tenant-a-only');
    }
    const inMessages = await messages(second.url, secret);
    expect(inMessages.status).toBe(403);
    expect(inMessages.body).toMatchObject({ type: 'error', error: { type: 'permission_error' } });

    const listed = await call(member, 'GET', `/api/v1/keys/${String(created.body.id)}`);
    expect(listed.body).toMatchObject({ status: 'group_not_granted', group_name: 'tenant-a-only' });
    expect(await groupNames(member)).not.toContain('tenant-a-only');

    // Granting again brings the same key back, on both processes.
    await call(operator, 'PUT', `/api/v1/operator/groups/${groupId}/grants/${memberAccount}`);
    expect((await chat(second.url, secret)).status).toBe(200);
    expect((await call(member, 'GET', `/api/v1/keys/${String(created.body.id)}`)).body).toMatchObject({ status: 'active' });
  });

  it('making a public group private stops the keys of accounts without a grant; members cannot manage grants', async () => {
    const group = await call(operator, 'POST', '/api/v1/operator/groups', { name: 'was-public', family: null });
    expect(group.body).toMatchObject({ visibility: 'public' });
    const id = group.body.id as number;
    await call(operator, 'POST', '/api/v1/operator/upstreams', {
      group_id: id,
      protocol: 'chat',
      base_url: gateway.sim.url,
      api_key: 'sim-key',
      models: ['gpt-4.1'],
    });
    const key = await call(member, 'POST', '/api/v1/keys', { name: 'public', group_id: 'was-public' });
    expect(key.status).toBe(201);
    // (The first process added the upstream account; the second learns of it on its directory refresh.)
    expect((await chat(gateway.url, key.body.key as string)).status).toBe(200);
    expect((await call(operator, 'PATCH', `/api/v1/operator/groups/${id}`, { visibility: 'private' })).status).toBe(200);
    expect((await chat(gateway.url, key.body.key as string)).status).toBe(403);
    expect((await chat(second.url, key.body.key as string)).status).toBe(403);
    expect((await call(member, 'PUT', `/api/v1/operator/groups/${id}/grants/${memberAccount}`)).status).toBe(403);
    const listing = await call(operator, 'GET', '/api/v1/operator/groups');
    expect((listing.body.data as Json[]).find((g) => g.id === id)).toMatchObject({ visibility: 'private', grants: 0 });
  });
});
