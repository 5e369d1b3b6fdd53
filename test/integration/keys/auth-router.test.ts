/** Console login, session, logout, CSRF and login throttling. */
import { createConsoleUser } from '../../../src/process/seed';
import { hashSessionToken } from '../../../src/auth/console-session';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { seedKey, type SeededKey } from '../admission/admission-fixtures';
import { callJson, startGatewayInstance, type GatewayInstance } from './gateway-instance';

describe('console authentication', () => {
  let deps: TestDependencies;
  let gateway: GatewayInstance;
  let owner: SeededKey;

  beforeAll(async () => {
    // The mini app is reached from 127.0.0.1: trusting it lets a test play a TLS-terminating proxy.
    deps = await createTestDependencies({ env: { TRUSTED_PROXIES: '127.0.0.1' } });
    gateway = await startGatewayInstance(deps);
    owner = await seedKey(deps, {});
    await createConsoleUser(deps.db, { accountId: owner.accountId, email: 'ada@example.com', password: 'analytical engine' });
  });
  afterAll(async () => {
    await gateway.close();
    await deps.close();
  });

  const login = (email: string, password: string, headers: Record<string, string> = {}) =>
    fetch(`${gateway.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ email, password }),
    });

  it('logs in with a session cookie and a CSRF token, storing only the token hash', async () => {
    const response = await login('ADA@example.com', 'analytical engine');
    expect(response.status).toBe(200);
    const body = (await response.json()) as { csrf_token: string; account_id: number; user: { email: string } };
    expect(body).toMatchObject({ account_id: owner.accountId, user: { email: 'ada@example.com' } });
    const cookie = response.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^gw_session=[A-Za-z0-9_-]{40,}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=604800$/);
    const token = cookie.split(';')[0].split('=')[1];
    const stored = await deps.db.query('SELECT id_hash FROM console_sessions');
    expect(stored.rows.map((row: { id_hash: string }) => row.id_hash)).toContain(hashSessionToken(token));
    expect(JSON.stringify(stored.rows)).not.toContain(token);

    const session = await callJson(`${gateway.url}/api/v1/auth/session`, { headers: { cookie: `gw_session=${token}` } });
    expect(session.body).toMatchObject({ csrf_token: body.csrf_token, account_id: owner.accountId });
  });

  it('marks the cookie Secure behind a trusted TLS-terminating proxy', async () => {
    const response = await login('ada@example.com', 'analytical engine', { 'x-forwarded-proto': 'https' });
    expect(response.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('refuses a wrong password and an unknown email alike', async () => {
    const wrong = await login('ada@example.com', 'difference engine');
    const unknown = await login('nobody@example.com', 'analytical engine');
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.json()).toEqual(await unknown.json());
    expect(wrong.headers.get('set-cookie')).toBeNull();
  });

  it('logs out only with the CSRF token, after which the cookie opens nothing', async () => {
    const response = await login('ada@example.com', 'analytical engine');
    const { csrf_token: csrf } = (await response.json()) as { csrf_token: string };
    const cookie = (response.headers.get('set-cookie') ?? '').split(';')[0];
    expect((await callJson(`${gateway.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie } })).status).toBe(403);
    const out = await fetch(`${gateway.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie, 'x-csrf-token': csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^gw_session=; .*Max-Age=0/);
    expect((await callJson(`${gateway.url}/api/v1/keys`, { headers: { cookie } })).status).toBe(401);
    expect((await callJson(`${gateway.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie } })).status).toBe(200);
  });

  it('refuses an API key where a console session is required', async () => {
    const response = await callJson(`${gateway.url}/api/v1/auth/session`, { headers: { 'x-api-key': owner.secret } });
    expect(response.status).toBe(401);
    expect(response.body.error?.message).toContain('console session');
  });

  it('throttles an email after ten failed logins, even with the right password', async () => {
    await createConsoleUser(deps.db, { accountId: owner.accountId, email: 'grace@example.com', password: 'cobol' });
    for (let i = 0; i < 10; i++) expect((await login('grace@example.com', `guess ${i}`)).status).toBe(401);
    const throttled = await login('grace@example.com', 'cobol');
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await login('ada@example.com', 'analytical engine')).status).toBe(200);
  });

  it('validates the login body', async () => {
    const response = await callJson(`${gateway.url}/api/v1/auth/login`, { method: 'POST', body: { email: 'ada@example.com' } });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ param: 'password' });
  });
});
