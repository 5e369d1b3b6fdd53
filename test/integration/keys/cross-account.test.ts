/** Account B can never see or touch account A's keys: every operation answers 404, and A's key is unchanged. */
import { createConsoleUser } from '../../../src/process/seed';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { seedKey, type SeededKey } from '../admission/admission-fixtures';
import { callJson, startGatewayInstance, type GatewayInstance } from './gateway-instance';

describe('cross-account isolation', () => {
  let deps: TestDependencies;
  let gateway: GatewayInstance;
  let alice: SeededKey;
  let bob: SeededKey;

  beforeAll(async () => {
    deps = await createTestDependencies();
    gateway = await startGatewayInstance(deps);
    alice = await seedKey(deps, { key: { name: 'alice' } });
    bob = await seedKey(deps, { key: { name: 'bob' } });
  });
  afterAll(async () => {
    await gateway.close();
    await deps.close();
  });

  async function bobSession(): Promise<Record<string, string>> {
    await createConsoleUser(deps.db, { accountId: bob.accountId, email: 'bob@example.com', password: 'bob password' });
    const login = await fetch(`${gateway.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bob@example.com', password: 'bob password' }),
    });
    const { csrf_token: csrf } = (await login.json()) as { csrf_token: string };
    return { cookie: (login.headers.get('set-cookie') ?? '').split(';')[0], 'x-csrf-token': csrf };
  }

  it.each([
    ['key', false],
    ['console session', true],
  ])("with a %s, every operation on the other account's key is 404", async (_via, session) => {
    const headers = session ? await bobSession() : { 'x-api-key': bob.secret };
    const target = `${gateway.url}/api/v1/keys/${alice.keyId}`;
    const operations: [string, string, unknown?][] = [
      ['GET', target],
      ['GET', `${target}/reveal`],
      ['PUT', target, { name: 'pwned', status: 'revoked' }],
      ['POST', `${target}/rotate`],
      ['DELETE', target],
      ['GET', `${gateway.url}/v1/keys/${alice.keyId}`],
    ];
    for (const [method, url, body] of operations) {
      const response = await callJson(url, { method, headers, body });
      expect([method, url, response.status]).toEqual([method, url, 404]);
      expect(response.body.error).toMatchObject({ type: 'not_found_error', message: 'API key not found' });
      expect(JSON.stringify(response.body)).not.toContain(alice.secret);
    }
    const list = await callJson(`${gateway.url}/api/v1/keys`, { headers });
    expect((list.body.data as { id: number }[]).map((key) => key.id)).toEqual([bob.keyId]);
  });

  it("leaves the other account's key untouched", async () => {
    const mine = await callJson(`${gateway.url}/api/v1/keys/${alice.keyId}`, { headers: { 'x-api-key': alice.secret } });
    expect(mine.body).toMatchObject({ name: 'alice', status: 'active' });
    expect((await callJson(`${gateway.url}/api/v1/keys/${alice.keyId}/reveal`, { headers: { 'x-api-key': alice.secret } })).body.key).toBe(
      alice.secret,
    );
    expect((await callJson(`${gateway.url}/v1/probe`, { method: 'POST', headers: { 'x-api-key': alice.secret }, body: {} })).status).toBe(
      200,
    );
  });

  it('answers the same 404 for a key id that does not exist at all', async () => {
    const missing = await callJson(`${gateway.url}/api/v1/keys/987654`, { headers: { 'x-api-key': bob.secret } });
    const foreign = await callJson(`${gateway.url}/api/v1/keys/${alice.keyId}`, { headers: { 'x-api-key': bob.secret } });
    expect({ status: missing.status, error: missing.body.error }).toEqual({ status: foreign.status, error: foreign.body.error });
  });
});
