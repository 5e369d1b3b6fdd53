/**
 * Sticky routing for prompt caching, measured through the simulator (prompt caches per upstream
 * credential, as providers keep them): a group of 4 accounts of one Messages model and 50 concurrent
 * 4-turn conversations. With affinity on, ≥ 95 % of what turns 2+ repeat is billed as cache reads;
 * with it off the same run loses most of it. Sessions spread over every account (weights still
 * decide the first turn), failover moves a session and it sticks to its new account, and a
 * translated Chat/Responses target receives the session as `prompt_cache_key`.
 */
import { runConversations } from '../../scripts/bench/affinity-conversations';
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { countSocketWrites } from '../support/redis';

jest.setTimeout(120_000);

const MODEL = 'claude-sonnet-4-5';
const CREDENTIALS = ['sim-key.a', 'sim-key.b', 'sim-key.c', 'sim-key.d'];

async function fourAccountGroup(gateway: TestGateway, name: string): Promise<{ key: string; accountIds: number[] }> {
  const groupId = await createGroup(gateway.deps.db, { name, family: null });
  const accountIds: number[] = [];
  for (const [index, apiKey] of CREDENTIALS.entries()) {
    accountIds.push(
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: `${name}-${index}`,
        protocol: 'messages',
        baseUrl: gateway.sim.url,
        apiKey,
        models: [MODEL],
      }),
    );
  }
  gateway.services.upstreams.invalidate();
  return {
    key: (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name })).secret,
    accountIds,
  };
}

/** Which credential served each conversation's turns, from the simulator's request log. */
function credentialsByConversation(gateway: TestGateway, tag: string): Map<string, string[]> {
  const byConversation = new Map<string, string[]>();
  for (const entry of gateway.sim.requests) {
    const system = JSON.stringify((entry.body as { system?: unknown } | null)?.system ?? '');
    const match = new RegExp(`\\[${tag}\\] You are planning assistant number (\\d+)`).exec(system);
    if (!match) continue;
    byConversation.set(match[1], [...(byConversation.get(match[1]) ?? []), entry.headers['x-api-key']]);
  }
  return byConversation;
}

describe('session affinity keeps prompt caches warm', () => {
  let on: TestGateway;
  let off: TestGateway;
  beforeAll(async () => {
    [on, off] = await Promise.all([
      startTestGateway({ env: { UPSTREAM_COOLDOWN_MS: '300' } }),
      startTestGateway({ env: { SESSION_AFFINITY_TTL_SECONDS: '0' } }),
    ]);
    // 50 to 200 conversations at once: above the pro tier's concurrency cap.
    for (const gateway of [on, off])
      await gateway.deps.db.query("UPDATE accounts SET tier = 'enterprise', concurrency_cap = 500 WHERE id = $1", [gateway.accountId]);
  });
  afterAll(async () => {
    await Promise.all([on?.close(), off?.close()]);
  });

  it('bills >= 95 % of the repeated input as cache reads with affinity on, and shows the loss with it off', async () => {
    const [withAffinity, withoutAffinity] = await Promise.all([
      fourAccountGroup(on, 'affinity-on').then(({ key }) =>
        runConversations({ baseUrl: on.url, key, model: MODEL, conversations: 50, turns: 4, tag: 'on', withUserId: 25 }),
      ),
      fourAccountGroup(off, 'affinity-off').then(({ key }) =>
        runConversations({ baseUrl: off.url, key, model: MODEL, conversations: 50, turns: 4, tag: 'off', withUserId: 25 }),
      ),
    ]);
    console.log(`session affinity: on ${JSON.stringify(withAffinity)}; off ${JSON.stringify(withoutAffinity)}`);
    expect(withAffinity.errors).toBe(0);
    expect(withoutAffinity.errors).toBe(0);
    expect(withAffinity.cacheableTokens).toBeGreaterThan(100_000);
    expect(withAffinity.cachedShare).toBeGreaterThanOrEqual(0.95);
    expect(withoutAffinity.cachedShare).toBeLessThan(0.75);

    // Every conversation stayed on one account; the first turns spread over all four.
    const served = credentialsByConversation(on, 'on');
    expect(served.size).toBe(50);
    for (const credentials of served.values()) expect(new Set(credentials).size).toBe(1);
    const firstTurns = new Set([...served.values()].map((credentials) => credentials[0]));
    expect(firstTurns).toEqual(new Set(CREDENTIALS));
  });

  it('keeps the weights across sessions: a 3:1 pair gets about 3/4 of 200 new sessions, each staying put', async () => {
    const groupId = await createGroup(on.deps.db, { name: 'affinity-weights', family: null });
    await addUpstreamAccount(on.deps.db, on.deps.crypto, {
      groupId,
      protocol: 'messages',
      baseUrl: on.sim.url,
      apiKey: 'sim-key.heavy',
      models: [MODEL],
      weight: 3,
    });
    await addUpstreamAccount(on.deps.db, on.deps.crypto, {
      groupId,
      protocol: 'messages',
      baseUrl: on.sim.url,
      apiKey: 'sim-key.light',
      models: [MODEL],
      weight: 1,
    });
    on.services.upstreams.invalidate();
    const key = (await insertApiKey(on.deps.db, on.deps.crypto, { accountId: on.accountId, groupId, name: 'affinity-weights' })).secret;
    const turn = (session: number) =>
      fetch(`${on.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: MODEL,
          max_tokens: 8,
          metadata: { user_id: `weights-${session}` },
          messages: [{ role: 'user', content: `weights ${session}` }],
        }),
      }).then((response) => response.status);
    const sessions = Array.from({ length: 200 }, (_, index) => index);
    for (let round = 0; round < 2; round++) {
      const statuses = await Promise.all(sessions.map(turn));
      expect(statuses.every((status) => status === 200)).toBe(true);
    }
    const served = new Map<string, string[]>();
    for (const entry of on.sim.requests) {
      const match = /^weights (\d+)$/.exec(
        String((entry.body as { messages?: Array<{ content: unknown }> } | null)?.messages?.[0]?.content ?? ''),
      );
      if (match) served.set(match[1], [...(served.get(match[1]) ?? []), entry.headers['x-api-key']]);
    }
    expect(served.size).toBe(200);
    for (const credentials of served.values()) expect(credentials).toEqual([credentials[0], credentials[0]]);
    const heavy = [...served.values()].filter((credentials) => credentials[0] === 'sim-key.heavy').length / 200;
    // 3/4 expected; the bounds are five standard deviations (≈ 0.031) away.
    expect(heavy).toBeGreaterThan(0.59);
    expect(heavy).toBeLessThan(0.91);
  });

  it('moves a session to another account when its account fails, and keeps it there', async () => {
    const { key, accountIds } = await fourAccountGroup(on, 'affinity-failover');
    const turn = (text: string) =>
      fetch(`${on.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: MODEL,
          max_tokens: 16,
          metadata: { user_id: 'failover-session' },
          messages: [{ role: 'user', content: text }],
        }),
      });
    const credentialOf = () => on.sim.requests.at(-1)!.headers['x-api-key'];
    expect((await turn('first')).status).toBe(200);
    const firstCredential = credentialOf();
    expect((await turn('second')).status).toBe(200);
    expect(credentialOf()).toBe(firstCredential);
    // The session's account breaks: its requests now fail, so the session must move.
    const brokenId = accountIds[CREDENTIALS.indexOf(firstCredential)];
    await on.deps.db.query("UPDATE upstream_accounts SET base_url = base_url || '/_fault/500' WHERE id = $1", [brokenId]);
    on.services.upstreams.invalidate();
    expect((await turn('third')).status).toBe(200);
    const movedTo = credentialOf();
    expect(movedTo).not.toBe(firstCredential);
    await on.deps.db.query("UPDATE upstream_accounts SET base_url = replace(base_url, '/_fault/500', '') WHERE id = $1", [brokenId]);
    on.services.upstreams.invalidate();
    for (const text of ['fourth', 'fifth']) {
      expect((await turn(text)).status).toBe(200);
      expect(credentialOf()).toBe(movedTo);
    }
  });

  it('returns a session from a backup to its primary once the primary is healthy again (priority wins)', async () => {
    const groupId = await createGroup(on.deps.db, { name: 'affinity-priority', family: null });
    const primary = await addUpstreamAccount(on.deps.db, on.deps.crypto, {
      groupId,
      protocol: 'messages',
      baseUrl: on.sim.url,
      apiKey: 'sim-key.primary',
      models: [MODEL],
      priority: 0,
    });
    await addUpstreamAccount(on.deps.db, on.deps.crypto, {
      groupId,
      protocol: 'messages',
      baseUrl: on.sim.url,
      apiKey: 'sim-key.backup',
      models: [MODEL],
      priority: 1,
    });
    on.services.upstreams.invalidate();
    const key = (await insertApiKey(on.deps.db, on.deps.crypto, { accountId: on.accountId, groupId, name: 'affinity-priority' })).secret;
    const turn = async () => {
      const response = await fetch(`${on.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: MODEL,
          max_tokens: 16,
          metadata: { user_id: 'priority-session' },
          messages: [{ role: 'user', content: 'hi' }],
        }),
      });
      expect(response.status).toBe(200);
      return on.sim.requests.at(-1)!.headers['x-api-key'];
    };
    expect(await turn()).toBe('sim-key.primary');
    await on.deps.db.query("UPDATE upstream_accounts SET base_url = base_url || '/_fault/500' WHERE id = $1", [primary]);
    on.services.upstreams.invalidate();
    expect(await turn()).toBe('sim-key.backup');
    expect(await turn()).toBe('sim-key.backup');
    await on.deps.db.query("UPDATE upstream_accounts SET base_url = replace(base_url, '/_fault/500', '') WHERE id = $1", [primary]);
    on.services.upstreams.invalidate();
    await new Promise((resolve) => setTimeout(resolve, 400)); // past the primary's 300 ms cooldown
    expect(await turn()).toBe('sim-key.primary');
    expect(await turn()).toBe('sim-key.primary');
  });

  it("keys a conversation by Claude Code's x-claude-code-session-id and Codex's session_id header, even when its prefix changes (issue 25)", async () => {
    const { key } = await fourAccountGroup(on, 'affinity-header');
    const groupId = await createGroup(on.deps.db, { name: 'affinity-header-codex', family: null });
    for (const [index, apiKey] of CREDENTIALS.entries()) {
      await addUpstreamAccount(on.deps.db, on.deps.crypto, {
        groupId,
        name: `affinity-header-codex-${index}`,
        protocol: 'responses',
        baseUrl: on.sim.url,
        apiKey,
        models: ['gpt-5'],
      });
    }
    on.services.upstreams.invalidate();
    const codexKey = (await insertApiKey(on.deps.db, on.deps.crypto, { accountId: on.accountId, groupId, name: 'affinity-header-codex' }))
      .secret;
    const served = async (url: string, headers: Record<string, string>, body: unknown, credentialHeader: string): Promise<string> => {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
      expect(response.status).toBe(200);
      await response.text();
      const credential = on.sim.requests.at(-1)!.headers[credentialHeader];
      return credential.replace(/^Bearer /, '');
    };
    for (let session = 0; session < 8; session += 1) {
      const claude: string[] = [];
      const codex: string[] = [];
      // Each turn starts differently (a compacted or rewritten history): only the header ties them.
      for (let turn = 0; turn < 4; turn += 1) {
        claude.push(
          await served(
            `${on.url}/v1/messages`,
            { 'x-api-key': key, 'anthropic-version': '2023-06-01', 'x-claude-code-session-id': `cc-${session}` },
            { model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: `session ${session} rewritten at turn ${turn}` }] },
            'x-api-key',
          ),
        );
        codex.push(
          await served(
            `${on.url}/v1/responses`,
            { authorization: `Bearer ${codexKey}`, session_id: `codex-${session}` },
            { model: 'gpt-5', store: false, input: `session ${session} rewritten at turn ${turn}` },
            'authorization',
          ),
        );
      }
      expect(new Set(claude).size).toBe(1);
      expect(new Set(codex).size).toBe(1);
    }
  });

  it('sends the session as prompt_cache_key when translating to Chat and Responses', async () => {
    const groupId = await createGroup(on.deps.db, { name: 'affinity-cache-key', family: null });
    await addUpstreamAccount(on.deps.db, on.deps.crypto, {
      groupId,
      protocol: 'chat',
      baseUrl: on.sim.url,
      apiKey: 'sim-key',
      models: ['gpt-4.1'],
    });
    await addUpstreamAccount(on.deps.db, on.deps.crypto, {
      groupId,
      protocol: 'responses',
      baseUrl: on.sim.url,
      apiKey: 'sim-key',
      models: ['gpt-5'],
    });
    on.services.upstreams.invalidate();
    const key = (await insertApiKey(on.deps.db, on.deps.crypto, { accountId: on.accountId, groupId, name: 'affinity-cache-key' })).secret;
    const keys: unknown[] = [];
    for (const model of ['gpt-4.1', 'gpt-4.1', 'gpt-5']) {
      const response = await fetch(`${on.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model,
          max_tokens: 16,
          metadata: { user_id: 'cache-key-session' },
          messages: [{ role: 'user', content: `hello ${model}` }],
        }),
      });
      expect(response.status).toBe(200);
      keys.push((on.sim.requests.at(-1)!.body as { prompt_cache_key?: unknown }).prompt_cache_key);
    }
    expect(keys[0]).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(keys).size).toBe(1);
  });
  it("costs one Redis round trip for routing and admission together: the session read leaves in admission's write (issue 13)", async () => {
    const { key } = await fourAccountGroup(on, 'affinity-round-trips');
    const writes = countSocketWrites(on.deps.redis);
    const perRequest: number[] = [];
    for (let i = 0; i < 6; i++) {
      const before = writes();
      const response = await fetch(`${on.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          model: MODEL,
          max_tokens: 16,
          metadata: { user_id: 'round-trips' },
          messages: [{ role: 'user', content: 'Hello' }],
        }),
      });
      expect(response.status).toBe(200);
      await response.text();
      perRequest.push(writes() - before);
    }
    // Admission's script with the session's GETEX, then settlement, which also appends the request
    // record of this whole answer (docs/request-log.md: no append of its own before the last byte);
    // the session stays put, so no SET.
    // (Background commands on the connection can only add writes: the least is the request's own.)
    expect(Math.min(...perRequest.slice(1))).toBe(2);
  });
});
