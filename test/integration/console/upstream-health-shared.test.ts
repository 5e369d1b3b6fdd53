/**
 * Upstream health is shared by every API process (issue 22 item 4): an account that fails a real
 * call in one API process is cooling down in the operator listing of a second process at once, the
 * second process routes around it without trying it itself, and the failures are counted minute by
 * minute (by reason) for the operator's health over time. The cost on the request path: one Redis
 * write for a failed attempt, none for a success.
 */
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { addUpstreamAccount, createGroup } from '../../../src/process/seed';
import { startTestGateway, type ApiInstance, type TestGateway } from '../../support/gateway';
import { countSocketWrites } from '../../support/redis';
import { consoleLogin } from '../../support/console-login';

type Json = Record<string, any>;

describe('shared upstream health', () => {
  let gateway: TestGateway;
  let second: ApiInstance;
  let operator: { cookie: string; csrf: string };

  async function call(base: string, method: string, path: string, body?: unknown) {
    const headers: Record<string, string> = { cookie: operator.cookie, 'x-csrf-token': operator.csrf };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Json };
  }

  const chat = async (base: string, secret: string) => {
    const response = await fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
    });
    await response.text();
    return response.status;
  };

  beforeAll(async () => {
    gateway = await startTestGateway();
    second = await gateway.startSecondInstance();
    const login = await consoleLogin(gateway.deps.db, gateway.accountId, 'operator@example.test', 'operator');
    operator = { cookie: login.cookie, csrf: login.csrf };
  }, 60_000);

  afterAll(async () => {
    await second.close();
    await gateway.close();
  });

  it('an account that failed in one API process is cooling down in the second, which routes around it and counts the failure', async () => {
    const group = await call(gateway.url, 'POST', '/api/v1/operator/groups', { name: 'shared-health', family: null });
    const failing = await call(gateway.url, 'POST', '/api/v1/operator/upstreams', {
      group_id: group.body.id,
      protocol: 'chat',
      base_url: `${gateway.sim.url}/_fault/503`,
      api_key: 'sim-key',
      models: ['gpt-4.1'],
      priority: 0,
      verify: false,
    });
    const healthy = await call(gateway.url, 'POST', '/api/v1/operator/upstreams', {
      group_id: group.body.id,
      protocol: 'chat',
      base_url: gateway.sim.url,
      api_key: 'sim-key',
      models: ['gpt-4.1'],
      priority: 1,
    });
    const key = await insertApiKey(gateway.deps.db, gateway.deps.crypto, {
      accountId: gateway.accountId,
      groupId: group.body.id as number,
      name: 'shared-health',
    });
    const listed = async (base: string, id: number) =>
      ((await call(base, 'GET', '/api/v1/operator/upstreams')).body.data as Json[]).find((u) => u.id === id)!;
    expect(await listed(second.url, failing.body.id as number)).toMatchObject({
      healthy: true,
      cooling_down_until: null,
      recent_failures: 0,
    });

    // The first process tries the failing account (priority 0), fails over to the healthy one.
    expect(await chat(gateway.url, key.secret)).toBe(200);

    const seen = await listed(second.url, failing.body.id as number);
    expect(seen).toMatchObject({ healthy: false, recent_failures: 1, recent_failure_reasons: { 503: 1 } });
    expect(Date.parse(String(seen.cooling_down_until))).toBeGreaterThan(Date.now());
    expect(await listed(second.url, healthy.body.id as number)).toMatchObject({ healthy: true, recent_failures: 0 });

    // The second process learned it (pub/sub) and does not try the failing account itself.
    for (let waited = 0; !second.services.upstreams.cooldowns().some((c) => c.accountId === failing.body.id); waited += 20) {
      if (waited > 5_000) throw new Error('the second process never learned the cooldown');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const simCalls = gateway.sim.requests.length;
    expect(await chat(second.url, key.secret)).toBe(200);
    const tried = gateway.sim.requests.slice(simCalls).map((r) => r.path);
    expect(tried).toEqual(['/v1/chat/completions']);
    expect(await listed(second.url, failing.body.id as number)).toMatchObject({ recent_failures: 1 });

    // Over time: the failure is in this minute's counters, by account and reason.
    const history = await call(second.url, 'GET', '/api/v1/operator/upstream-health?minutes=10');
    expect(history.status).toBe(200);
    expect(history.body.minutes).toHaveLength(10);
    const total = (history.body.minutes as Json[]).reduce((sum, m) => sum + Number(m.failures[String(failing.body.id)]?.['503'] ?? 0), 0);
    expect(total).toBe(1);
    expect(history.body.cooling_down).toEqual([expect.objectContaining({ upstream_account_id: failing.body.id })]);
    expect((await call(second.url, 'GET', '/api/v1/operator/upstream-health?minutes=0')).status).toBe(400);
  });
});

describe('what shared upstream health costs the request path', () => {
  let gateway: TestGateway;

  // No cooldown: every request tries the failing account first, then fails over.
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { UPSTREAM_COOLDOWN_MS: '0' } });
  }, 60_000);
  afterAll(async () => {
    await gateway.close();
  });

  async function groupKey(name: string, baseUrls: string[]): Promise<string> {
    const groupId = await createGroup(gateway.deps.db, { name, family: null });
    for (const [priority, baseUrl] of baseUrls.entries()) {
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: `${name}-${priority}`,
        protocol: 'chat',
        baseUrl,
        apiKey: 'sim-key',
        models: ['gpt-4.1'],
        priority,
      });
    }
    gateway.services.upstreams.invalidate();
    return (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name })).secret;
  }

  /** The fewest writes on the API's Redis connection over a few requests (background commands can only add some). */
  async function fewestWrites(secret: string): Promise<number> {
    const writes = countSocketWrites(gateway.deps.redis);
    const perRequest: number[] = [];
    for (let i = 0; i < 5; i++) {
      const before = writes();
      const response = await fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(response.status).toBe(200);
      await response.text();
      perRequest.push(writes() - before);
    }
    return Math.min(...perRequest);
  }

  it('a failed attempt adds exactly one Redis write; a success adds none', async () => {
    const healthy = await fewestWrites(await groupKey('cost-healthy', [gateway.sim.url]));
    const failingOver = await fewestWrites(await groupKey('cost-failover', [`${gateway.sim.url}/_fault/503`, gateway.sim.url]));
    // Admission and settlement (a whole answer's request record rides in the settlement's call): as before shared health.
    expect(healthy).toBe(2);
    expect(failingOver).toBe(healthy + 1);
  });
});
