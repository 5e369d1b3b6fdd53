/**
 * The console can tell when the upstreams are the provider simulator: the session carries how many
 * active upstream accounts there are and how many are the simulator (the quick start's bootstrap
 * marks its accounts); after the operator connects a provider and disables the simulator, none are.
 */
import { createConsoleSession, SESSION_COOKIE } from '../../../src/auth/console-session';
import { addUpstreamAccount, createConsoleUser, findGroupId } from '../../../src/process/seed';
import { startTestGateway, type TestGateway } from '../../support/gateway';

describe('simulated upstreams in the console session', () => {
  let gateway: TestGateway;
  let cookie: string;
  beforeAll(async () => {
    gateway = await startTestGateway();
    const userId = await createConsoleUser(gateway.deps.db, {
      accountId: gateway.accountId,
      email: 'member@example.test',
      password: 'a long password',
    });
    cookie = `${SESSION_COOKIE}=${(await createConsoleSession(gateway.deps.db, userId, Date.now())).token}`;
  }, 60_000);
  afterAll(async () => {
    await gateway.close();
  });

  const session = async () =>
    (await (await fetch(`${gateway.url}/api/v1/auth/session`, { headers: { cookie } })).json()) as {
      upstreams: { active: number; simulated: number };
    };

  it('counts the simulator accounts among the active ones', async () => {
    const first = (await session()).upstreams;
    expect(first.active).toBeGreaterThan(0);
    expect(first.simulated).toBe(first.active);

    const groupId = (await findGroupId(gateway.deps.db, 'default'))!;
    await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
      groupId,
      provider: 'openai',
      protocol: 'responses',
      baseUrl: 'https://api.openai.com',
      apiKey: 'sk',
      models: ['gpt-4.1'],
    });
    expect((await session()).upstreams).toEqual({ active: first.active + 1, simulated: first.simulated });
    await gateway.deps.db.query("UPDATE upstream_accounts SET status = 'disabled' WHERE provider = 'simulator'");
    expect((await session()).upstreams).toEqual({ active: 1, simulated: 0 });
    // The login answers the same session object.
    const login = await fetch(`${gateway.url}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'member@example.test', password: 'a long password' }),
    });
    expect(((await login.json()) as { upstreams: unknown }).upstreams).toEqual({ active: 1, simulated: 0 });
  });
});
