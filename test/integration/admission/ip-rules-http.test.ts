/** IP rules over real sockets: distinct loopback source addresses, and X-Forwarded-For through a trusted proxy only. */
import { Agent, request } from 'undici';
import { createKeyAuthenticator, type GatewayKeyAuthenticator } from '../../../src/auth/create-key-authenticator';
import { createAdmission } from '../../../src/limits/create-admission';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { startMiniApp, type MiniApp } from '../../support/mini-app';
import { seedKey } from './admission-fixtures';
import { createProbeRouter } from './probe-router';

const PROXY = '127.0.0.4';

describe('IP rules over HTTP', () => {
  let deps: TestDependencies;
  let authenticator: GatewayKeyAuthenticator;
  let app: MiniApp;
  const agents = new Map<string, Agent>();

  function from(address: string): Agent {
    let agent = agents.get(address);
    if (!agent) {
      agent = new Agent({ localAddress: address });
      agents.set(address, agent);
    }
    return agent;
  }

  async function call(source: string, secret: string, headers: Record<string, string> = {}) {
    const response = await request(`${app.url}/v1/probe?surface=chat`, {
      method: 'POST',
      dispatcher: from(source),
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json', ...headers },
      body: '{}',
    });
    const body = (await response.body.json()) as { clientIp?: string; error?: { type: string; code: string; message: string } };
    return { status: response.statusCode, body, headers: response.headers };
  }

  beforeAll(async () => {
    deps = await createTestDependencies({ env: { TRUSTED_PROXIES: `${PROXY},10.0.0.0/8` } });
    authenticator = createKeyAuthenticator(deps);
    app = await startMiniApp(createProbeRouter(deps, authenticator, createAdmission(deps)));
  });
  afterAll(async () => {
    for (const agent of agents.values()) await agent.close();
    await app.close();
    await authenticator.close();
    await deps.close();
  });

  it('admits a whitelisted source address and refuses another with 403 and the accounting headers', async () => {
    const { secret } = await seedKey(deps, { key: { ipWhitelist: ['127.0.0.2/32'] } });
    const allowed = await call('127.0.0.2', secret);
    expect(allowed).toMatchObject({ status: 200, body: { clientIp: '127.0.0.2' } });
    const refused = await call('127.0.0.3', secret);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
    expect(refused.body.error?.message).toContain('127.0.0.3');
    expect(refused.headers['x-quota-remaining-credits']).toBe('100000000');
  });

  it('lets the blacklist win over the whitelist', async () => {
    const { secret } = await seedKey(deps, { key: { ipWhitelist: ['127.0.0.0/8'], ipBlacklist: ['127.0.0.3'] } });
    expect((await call('127.0.0.2', secret)).status).toBe(200);
    expect((await call('127.0.0.3', secret)).status).toBe(403);
  });

  it('believes X-Forwarded-For only from a trusted proxy, walking it right to left', async () => {
    const { secret } = await seedKey(deps, { key: { ipBlacklist: ['127.0.0.3', '2001:db8::/32'] } });
    // Through the trusted proxy: the forwarded address is the caller.
    expect(await call(PROXY, secret, { 'x-forwarded-for': '127.0.0.3' })).toMatchObject({ status: 403 });
    expect(await call(PROXY, secret, { 'x-forwarded-for': '127.0.0.2' })).toMatchObject({ status: 200, body: { clientIp: '127.0.0.2' } });
    expect(await call(PROXY, secret, { 'x-forwarded-for': '2001:db8::7' })).toMatchObject({ status: 403 });
    // A spoofed left part is ignored: the right-most untrusted hop is the caller.
    expect(await call(PROXY, secret, { 'x-forwarded-for': '127.0.0.3, 127.0.0.2, 10.1.1.1' })).toMatchObject({
      status: 200,
      body: { clientIp: '127.0.0.2' },
    });
    expect(await call(PROXY, secret, { 'x-forwarded-for': '127.0.0.2, 127.0.0.3' })).toMatchObject({ status: 403 });
    // From an untrusted peer the header is ignored entirely.
    expect(await call('127.0.0.2', secret, { 'x-forwarded-for': '127.0.0.3' })).toMatchObject({
      status: 200,
      body: { clientIp: '127.0.0.2' },
    });
    expect(await call('127.0.0.3', secret, { 'x-forwarded-for': '127.0.0.2' })).toMatchObject({ status: 403 });
  });

  it('applies IPv6 whitelists (an IPv4 caller is outside them)', async () => {
    const { secret } = await seedKey(deps, { key: { ipWhitelist: ['2001:db8::/32'] } });
    expect(await call(PROXY, secret, { 'x-forwarded-for': '2001:db8:1::1' })).toMatchObject({
      status: 200,
      body: { clientIp: '2001:db8:1::1' },
    });
    expect((await call(PROXY, secret, { 'x-forwarded-for': '2001:db9::1' })).status).toBe(403);
    expect((await call('127.0.0.2', secret)).status).toBe(403);
  });
});
