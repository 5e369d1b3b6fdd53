/** Key management over HTTP: every field and default of interface 2.1, masking, reveal, statuses, validation. */
import { createConsoleUser, createGroup } from '../../../src/process/seed';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { seedKey, type SeededKey } from '../admission/admission-fixtures';
import { callJson, startGatewayInstance, type GatewayInstance } from './gateway-instance';

describe('key management', () => {
  let deps: TestDependencies;
  let gateway: GatewayInstance;
  let owner: SeededKey;

  beforeAll(async () => {
    deps = await createTestDependencies();
    gateway = await startGatewayInstance(deps);
    owner = await seedKey(deps, { key: { name: 'owner key' } });
    await createGroup(deps.db, { name: 'openai', family: 'openai' });
  });
  afterAll(async () => {
    await gateway.close();
    await deps.close();
  });

  const manage = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    callJson(`${gateway.url}${path}`, { ...init, headers: { 'x-api-key': owner.secret, ...init.headers } });
  const probe = (secret: string) =>
    callJson(`${gateway.url}/v1/probe`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body: {} });

  it('creates a key with the documented defaults and returns the plaintext once', async () => {
    const created = await manage('/api/v1/keys', { method: 'POST', body: { name: 'ci', group_id: 'default' } });
    expect(created.status).toBe(201);
    const secret = created.body.key as string;
    expect(secret).toMatch(/^sk-svc-[A-Za-z0-9]{48}$/);
    expect(created.body).toMatchObject({
      object: 'api_key',
      name: 'ci',
      group_id: owner.groupId,
      group_name: 'default',
      status: 'active',
      quota: 0,
      quota_credits: 0,
      spent: 0,
      rate_limit_5h: 0,
      rate_limit_1d: 0,
      rate_limit_7d: 0,
      ip_whitelist: [],
      ip_blacklist: [],
      expires_at: null,
      last_used_at: null,
    });
    expect((await probe(secret)).status).toBe(200);

    const id = created.body.id as number;
    const masked = `sk-svc-...****${secret.slice(-4)}`;
    const one = await manage(`/api/v1/keys/${id}`);
    expect(one.body.key).toBe(masked);
    const list = await manage('/api/v1/keys');
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect((list.body.data as { id: number; key: string }[]).find((key) => key.id === id)?.key).toBe(masked);

    const revealed = await manage(`/api/v1/keys/${id}/reveal`);
    expect(revealed.body).toEqual({ id, object: 'api_key', key: secret });
    expect(revealed.headers.get('cache-control')).toBe('no-store');
    // Stored as HMAC + ciphertext only.
    const stored = await deps.db.query<{ secret_hmac: string; secret_encrypted: string }>(
      'SELECT secret_hmac, secret_encrypted FROM api_keys WHERE id = $1',
      [id],
    );
    expect(JSON.stringify(stored.rows[0])).not.toContain(secret.slice(7));
    expect(stored.rows[0].secret_hmac).toBe(deps.crypto.hmac(secret));
  });

  it('converts USD to integer credits and takes the group by id or name', async () => {
    const [openai] = (await deps.db.query<{ id: number }>("SELECT id FROM routing_groups WHERE name = 'openai'")).rows;
    const created = await manage('/api/v1/keys', {
      method: 'POST',
      body: {
        name: 'limits',
        group_id: 'openai',
        quota: 1.5,
        rate_limit_5h: 0.05,
        rate_limit_1d: '2',
        rate_limit_7d: 0.1234567,
        ip_whitelist: ['10.0.0.0/8', '2001:db8::/32'],
        ip_blacklist: ['10.1.2.3'],
        expires_in_days: 30,
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      group_id: Number(openai.id),
      group_name: 'openai',
      quota: 1.5,
      quota_credits: 1_500_000,
      rate_limit_5h: 0.05,
      rate_limit_1d: 2,
      rate_limit_7d: 0.123457,
    });
    const row = (
      await deps.db.query('SELECT quota_credits, rate_limit_5h, rate_limit_1d, rate_limit_7d, expires_at FROM api_keys WHERE id = $1', [
        created.body.id,
      ])
    ).rows[0];
    expect(row).toMatchObject({ quota_credits: 1_500_000, rate_limit_5h: 50_000, rate_limit_1d: 2_000_000, rate_limit_7d: 123_457 });
    const days = ((row.expires_at as Date).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    const byId = await manage('/api/v1/keys', { method: 'POST', body: { name: 'by id', group_id: Number(openai.id) } });
    expect(byId.body.group_name).toBe('openai');
  });

  it.each([
    [{ group_id: 'default' }, 'name'],
    [{ name: '  ', group_id: 'default' }, 'name'],
    [{ name: 'x' }, 'group_id'],
    [{ name: 'x', group_id: 'no-such-group' }, 'group_id'],
    [{ name: 'x', group_id: 'default', quota: -1 }, 'quota'],
    [{ name: 'x', group_id: 'default', rate_limit_5h: 'lots' }, 'rate_limit_5h'],
    [{ name: 'x', group_id: 'default', expires_in_days: 1.5 }, 'expires_in_days'],
    [{ name: 'x', group_id: 'default', expires_in_days: 0 }, 'expires_in_days'],
    [{ name: 'x', group_id: 'default', ip_whitelist: ['10.0.0.0/8', '10.0.0.0/33'] }, 'ip_whitelist[1]'],
    [{ name: 'x', group_id: 'default', ip_blacklist: '10.0.0.0/8' }, 'ip_blacklist'],
    [{ name: 'x', group_id: 'default', custom_key: 'sk-other-aaaaaaaaaaaaaaaaaaaaaaaaaaaa' }, 'custom_key'],
    [{ name: 'x', group_id: 'default', custom_key: 'sk-svc-short' }, 'custom_key'],
    [{ name: 'x', group_id: 'default', custom_key: 'sk-svc-aaaaaaaaaaaaaaaaaaaaaaaaaaa!' }, 'custom_key'],
  ])('refuses %j with a 400 naming %s', async (body, field) => {
    const response = await manage('/api/v1/keys', { method: 'POST', body });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ type: 'invalid_request_error', param: field });
    expect(response.body.error?.message.startsWith(`${field}:`)).toBe(true);
  });

  it('accepts a custom key and answers 409 to a duplicate', async () => {
    const custom = 'sk-svc-custom_key-0123456789abcdefghij';
    const created = await manage('/api/v1/keys', { method: 'POST', body: { name: 'custom', group_id: 'default', custom_key: custom } });
    expect(created.status).toBe(201);
    expect(created.body.key).toBe(custom);
    expect((await probe(custom)).status).toBe(200);
    const duplicate = await manage('/api/v1/keys', { method: 'POST', body: { name: 'again', group_id: 'default', custom_key: custom } });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error).toMatchObject({ param: 'custom_key' });
    const rotateOnto = await manage(`/api/v1/keys/${owner.keyId}/rotate`, { method: 'POST', body: { custom_key: custom } });
    expect(rotateOnto.status).toBe(409);
    expect((await probe(owner.secret)).status).toBe(200);
  });

  it('updates name, quota, rate limits, IP rules and status with PUT, effective at once', async () => {
    const created = await manage('/api/v1/keys', { method: 'POST', body: { name: 'edit me', group_id: 'default' } });
    const id = created.body.id as number;
    const secret = created.body.key as string;
    expect((await probe(secret)).status).toBe(200); // now cached

    const updated = await manage(`/api/v1/keys/${id}`, {
      method: 'PUT',
      body: {
        name: 'edited',
        quota: 2,
        rate_limit_5h: 0.5,
        rate_limit_1d: 1,
        rate_limit_7d: 3,
        ip_whitelist: ['10.0.0.0/8'],
        ip_blacklist: ['10.9.9.9'],
      },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      name: 'edited',
      quota_credits: 2_000_000,
      rate_limit_5h: 0.5,
      rate_limit_1d: 1,
      rate_limit_7d: 3,
      ip_whitelist: ['10.0.0.0/8'],
      ip_blacklist: ['10.9.9.9'],
      key: `sk-svc-...****${secret.slice(-4)}`,
    });
    // The cached key was invalidated: the new whitelist applies to the next call.
    expect((await probe(secret)).status).toBe(403);
    await manage(`/api/v1/keys/${id}`, { method: 'PUT', body: { ip_whitelist: [] } });
    const limited = await probe(secret);
    expect(limited.status).toBe(200);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('0.5');
    expect(limited.headers.get('x-quota-remaining-credits')).toBe('2000000');

    // Moving the key to another group it may use (issue 21); an unknown group names group_id.
    expect((await manage(`/api/v1/keys/${id}`, { method: 'PUT', body: { group_id: 'openai' } })).body).toMatchObject({
      group_name: 'openai',
    });
    expect((await manage(`/api/v1/keys/${id}`, { method: 'PUT', body: { group_id: 'no-such-group' } })).body.error).toMatchObject({
      param: 'group_id',
    });
    expect((await manage(`/api/v1/keys/${id}`, { method: 'PUT', body: { status: 'expired' } })).body.error).toMatchObject({
      param: 'status',
    });
  });

  it('walks the statuses: disabled is reversible, revoked is final', async () => {
    const created = await manage('/api/v1/keys', { method: 'POST', body: { name: 'statuses', group_id: 'default' } });
    const id = created.body.id as number;
    const secret = created.body.key as string;
    expect((await probe(secret)).status).toBe(200);

    expect((await manage(`/api/v1/keys/${id}`, { method: 'PUT', body: { status: 'disabled' } })).body.status).toBe('disabled');
    const disabled = await probe(secret);
    expect(disabled.status).toBe(401);
    expect(disabled.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect((await manage(`/api/v1/keys/${id}`, { method: 'PUT', body: { status: 'active' } })).body.status).toBe('active');
    expect((await probe(secret)).status).toBe(200);

    expect((await manage(`/api/v1/keys/${id}`, { method: 'PUT', body: { status: 'revoked' } })).body.status).toBe('revoked');
    expect((await probe(secret)).status).toBe(401);
    const revive = await manage(`/api/v1/keys/${id}`, { method: 'PUT', body: { status: 'active' } });
    expect(revive.status).toBe(409);
    expect((await manage(`/api/v1/keys/${id}/rotate`, { method: 'POST' })).status).toBe(409);
    expect((await manage(`/api/v1/keys/${id}`)).body.status).toBe('revoked');
  });

  it('rotates in place: new plaintext once, old secret dead', async () => {
    const created = await manage('/api/v1/keys', { method: 'POST', body: { name: 'rotate', group_id: 'default', quota: 1 } });
    const id = created.body.id as number;
    const old = created.body.key as string;
    expect((await probe(old)).status).toBe(200);
    const rotated = await manage(`/api/v1/keys/${id}/rotate`, { method: 'POST' });
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.key as string;
    expect(fresh).toMatch(/^sk-svc-/);
    expect(fresh).not.toBe(old);
    expect(rotated.body).toMatchObject({ id, name: 'rotate', quota_credits: 1_000_000 });
    expect((await probe(old)).status).toBe(401);
    expect((await probe(fresh)).status).toBe(200);
    expect((await manage(`/api/v1/keys/${id}/reveal`)).body.key).toBe(fresh);
    expect((await manage(`/api/v1/keys/${id}`)).body.key).toBe(`sk-svc-...****${fresh.slice(-4)}`);
  });

  it('deletes for good', async () => {
    const created = await manage('/api/v1/keys', { method: 'POST', body: { name: 'delete me', group_id: 'default' } });
    const id = created.body.id as number;
    expect((await probe(created.body.key as string)).status).toBe(200);
    expect((await manage(`/api/v1/keys/${id}`, { method: 'DELETE' })).body).toEqual({ id, object: 'api_key', deleted: true });
    expect((await probe(created.body.key as string)).status).toBe(401);
    expect((await manage(`/api/v1/keys/${id}`)).status).toBe(404);
    expect((await manage(`/api/v1/keys/${id}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('serves the /v1/keys aliases and answers 404 to ids that are not ids', async () => {
    const list = await manage('/v1/keys', { headers: { 'x-api-key': '', authorization: `Bearer ${owner.secret}` } });
    expect(list.status).toBe(200);
    expect(list.body.object).toBe('list');
    expect((await manage('/v1/keys/abc')).status).toBe(404);
    expect((await manage('/api/v1/keys/0')).status).toBe(404);
    expect((await manage('/api/v1/keys/99999999')).status).toBe(404);
  });

  it('requires authentication: a key of the account or a console session with CSRF on changes', async () => {
    expect((await callJson(`${gateway.url}/api/v1/keys`)).status).toBe(401);
    expect(
      (await callJson(`${gateway.url}/api/v1/keys`, { headers: { 'x-api-key': 'sk-svc-nopenopenopenopenopenopenopenope' } })).status,
    ).toBe(401);

    await createConsoleUser(deps.db, { accountId: owner.accountId, email: 'Owner@Example.com', password: 'correct horse' });
    const login = await fetch(`${gateway.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'owner@example.com', password: 'correct horse' }),
    });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
    const { csrf_token: csrf } = (await login.json()) as { csrf_token: string };

    const listed = await callJson(`${gateway.url}/api/v1/keys`, { headers: { cookie } });
    expect(listed.status).toBe(200);
    expect((listed.body.data as { id: number }[]).some((key) => key.id === owner.keyId)).toBe(true);
    const forged = await callJson(`${gateway.url}/api/v1/keys`, {
      method: 'POST',
      headers: { cookie },
      body: { name: 'csrf', group_id: 'default' },
    });
    expect(forged.status).toBe(403);
    expect(forged.body.error?.message).toContain('CSRF');
    const wrong = await callJson(`${gateway.url}/api/v1/keys`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': `${csrf}x` },
      body: { name: 'csrf', group_id: 'default' },
    });
    expect(wrong.status).toBe(403);
    const made = await callJson(`${gateway.url}/api/v1/keys`, {
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrf },
      body: { name: 'from console', group_id: 'default' },
    });
    expect(made.status).toBe(201);
  });
});
