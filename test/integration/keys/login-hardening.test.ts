/**
 * Issue 21 findings 7 and 8: console passwords hashed at OWASP's scrypt cost with old records
 * rehashed at their next successful login, and login throttling per client address across emails.
 */
import { randomBytes, scryptSync } from 'node:crypto';
import { Agent, request } from 'undici';
import { verifyPassword } from '../../../src/auth/verify-password';
import { createConsoleUser } from '../../../src/process/seed';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { seedKey } from '../admission/admission-fixtures';
import { startGatewayInstance, type GatewayInstance } from './gateway-instance';

jest.setTimeout(60_000);

/** A record as the gateway wrote them before: scrypt N=2^14, r=8, p=1, no parameters in it. */
function legacyRecord(password: string): string {
  const salt = randomBytes(16);
  return `scrypt$${salt.toString('base64')}$${scryptSync(password, salt, 64, { N: 2 ** 14, r: 8, p: 1 }).toString('base64')}`;
}

describe('console login hardening', () => {
  let deps: TestDependencies;
  let gateway: GatewayInstance;
  let accountId: number;
  const agents: Agent[] = [];

  async function login(email: string, password: string, from = '127.0.0.1') {
    const agent = new Agent({ localAddress: from });
    agents.push(agent);
    const response = await request(`${gateway.url}/api/v1/auth/login`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    await response.body.dump();
    return { status: response.statusCode, retryAfter: response.headers['retry-after'] };
  }
  const storedHash = async (email: string) =>
    (await deps.db.query<{ password_hash: string }>('SELECT password_hash FROM console_users WHERE email = $1', [email])).rows[0]!
      .password_hash;

  beforeAll(async () => {
    deps = await createTestDependencies();
    gateway = await startGatewayInstance(deps);
    accountId = (await seedKey(deps, {})).accountId;
  });
  afterAll(async () => {
    for (const agent of agents) await agent.close();
    await gateway.close();
    await deps.close();
  });

  describe('issue 21 finding 7: password hashing to OWASP guidance', () => {
    it('hashes new passwords with scrypt N=2^17, r=8, p=1', async () => {
      await createConsoleUser(deps.db, { accountId, email: 'new@example.com', password: 'a fresh password' });
      const record = await storedHash('new@example.com');
      expect(record).toMatch(/^scrypt\$N=131072,r=8,p=1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
      expect(await verifyPassword('a fresh password', record)).toBe(true);
      expect(await verifyPassword('another password', record)).toBe(false);
    });

    it('still verifies an old N=2^14 record and rehashes it at the next successful login only', async () => {
      const userId = await createConsoleUser(deps.db, { accountId, email: 'old@example.com', password: 'placeholder' });
      const legacy = legacyRecord('an old password');
      await deps.db.query('UPDATE console_users SET password_hash = $1 WHERE id = $2', [legacy, userId]);
      expect((await login('old@example.com', 'a wrong password', '127.0.0.5')).status).toBe(401);
      expect(await storedHash('old@example.com')).toBe(legacy);
      expect((await login('old@example.com', 'an old password', '127.0.0.5')).status).toBe(200);
      const upgraded = await storedHash('old@example.com');
      expect(upgraded).toMatch(/^scrypt\$N=131072,r=8,p=1\$/);
      expect((await login('old@example.com', 'an old password', '127.0.0.5')).status).toBe(200);
      expect(await storedHash('old@example.com')).toBe(upgraded);
    });
  });

  describe('issue 21 finding 8: login throttling per client address', () => {
    it('refuses an address that tried twenty different emails, with 429 and Retry-After, and not another address', async () => {
      await createConsoleUser(deps.db, { accountId, email: 'victim@example.com', password: 'the right password' });
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push((await login(`sprayed-${i}@example.com`, 'guess', '127.0.0.7')).status);
      expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
      expect(statuses).toContain(429);
      // The address stays refused, even with right credentials; another address is not.
      const refused = await login('victim@example.com', 'the right password', '127.0.0.7');
      expect(refused.status).toBe(429);
      expect(Number(refused.retryAfter)).toBeGreaterThan(0);
      expect((await login('victim@example.com', 'the right password', '127.0.0.8')).status).toBe(200);
    });
  });
});
