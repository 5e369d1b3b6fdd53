/**
 * Routing refusals that say which case they are, in each protocol's envelope: no account of the
 * group serves the model; all cooling down (earliest return, Retry-After); all disabled; a mix;
 * all failed this request (each failure's class). Never an upstream URL or credential.
 */
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

const COOLDOWN_MS = 60_000;
const MESSAGES_BODY = { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] };
const CHAT_BODY = { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] };

interface Reply {
  status: number;
  text: string;
  json: { error: { type: string; message: string; code?: string } };
  headers: Headers;
}

describe('routing refusals explain themselves', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { UPSTREAM_COOLDOWN_MS: String(COOLDOWN_MS), UPSTREAM_MAX_ATTEMPTS: '5' } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  async function group(
    name: string,
    accounts: Array<{ prefix?: string; models?: string[]; disabled?: boolean }>,
  ): Promise<{ key: string; ids: number[] }> {
    const groupId = await createGroup(gateway.deps.db, { name, family: null });
    const ids: number[] = [];
    for (const [index, account] of accounts.entries()) {
      const id = await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: `${name}-${index}`,
        protocol: 'messages',
        baseUrl: gateway.sim.url + (account.prefix ?? ''),
        apiKey: 'sim-key',
        models: account.models ?? ['claude-sonnet-4-5'],
        priority: index,
      });
      if (account.disabled) await gateway.deps.db.query("UPDATE upstream_accounts SET status = 'disabled' WHERE id = $1", [id]);
      ids.push(id);
    }
    gateway.services.upstreams.invalidate();
    const key = (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name })).secret;
    return { key, ids };
  }

  async function messages(key: string): Promise<Reply> {
    return call('/v1/messages', MESSAGES_BODY, { 'x-api-key': key, 'anthropic-version': '2023-06-01' });
  }

  async function call(path: string, body: unknown, headers: Record<string, string>): Promise<Reply> {
    const response = await fetch(`${gateway.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, text, json: JSON.parse(text) as Reply['json'], headers: response.headers };
  }

  function expectNoUpstreamSecrets(reply: Reply): void {
    expect(reply.text).not.toContain(new URL(gateway.sim.url).host);
    expect(reply.text).not.toContain('sim-key');
    expect(reply.text).not.toContain('127.0.0.1');
  }

  it('no account of the group serves the model: 503, no Retry-After', async () => {
    const { key } = await group('refuse-none', [{ models: ['claude-haiku-4-5'] }]);
    const reply = await messages(key);
    expect(reply.status).toBe(503);
    expect(reply.json.error.type).toBe('api_error');
    expect(reply.json.error.message).toBe('no available account: no account of group refuse-none serves model claude-sonnet-4-5');
    expect(reply.headers.get('retry-after')).toBeNull();
    const chat = await call('/v1/chat/completions', CHAT_BODY, { authorization: `Bearer ${key}` });
    expect(chat.status).toBe(503);
    expect(chat.json.error.message).toBe('no available account: no account of group refuse-none serves model claude-sonnet-4-5');
  });

  it('all accounts failed this request: each failure class named; then all cooling down with the earliest return and Retry-After', async () => {
    const { key, ids } = await group('refuse-failed', [{ prefix: '/_fault/429' }, { prefix: '/_fault/500' }]);
    const failed = await messages(key);
    expect(failed.status).toBe(502); // the last failure's status: an upstream 500 is a 502 api_error
    expect(failed.json.error.message).toBe(
      `no available account: all 2 accounts serving model claude-sonnet-4-5 in group refuse-failed failed this request (account #${ids[0]}: rate_limit (HTTP 429); account #${ids[1]}: upstream_error (HTTP 500))`,
    );
    expectNoUpstreamSecrets(failed);

    const before = Date.now();
    const cooling = await messages(key);
    expect(cooling.status).toBe(503);
    expect(cooling.json.error.type).toBe('api_error');
    const match =
      /^no available account: all 2 accounts of group refuse-failed serving model claude-sonnet-4-5 are cooling down after failures; the earliest is back at (\S+)$/.exec(
        cooling.json.error.message,
      );
    expect(match).not.toBeNull();
    const earliest = Date.parse(match![1]);
    expect(earliest).toBeGreaterThan(before);
    expect(earliest).toBeLessThanOrEqual(before + COOLDOWN_MS);
    const retryAfter = Number(cooling.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(COOLDOWN_MS / 1000);
    expect(Math.abs(retryAfter - (earliest - before) / 1000)).toBeLessThanOrEqual(1);
    expectNoUpstreamSecrets(cooling);

    // The same refusal in the Chat envelope, with its Retry-After.
    const chat = await call('/v1/chat/completions', CHAT_BODY, { authorization: `Bearer ${key}` });
    expect(chat.status).toBe(503);
    expect(chat.json.error.message).toMatch(/are cooling down after failures; the earliest is back at /);
    expect(Number(chat.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('all accounts disabled: 503 saying so', async () => {
    const { key } = await group('refuse-disabled', [{ disabled: true }, { disabled: true }, { models: ['claude-haiku-4-5'] }]);
    const reply = await messages(key);
    expect(reply.status).toBe(503);
    expect(reply.json.error.message).toBe(
      'no available account: all 2 accounts of group refuse-disabled serving model claude-sonnet-4-5 are disabled',
    );
    expect(reply.headers.get('retry-after')).toBeNull();
  });

  it('the media endpoints say the same (an image model whose one account is disabled)', async () => {
    const groupId = await createGroup(gateway.deps.db, { name: 'refuse-images', family: null });
    const id = await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
      groupId,
      protocol: 'chat',
      baseUrl: gateway.sim.url,
      apiKey: 'sim-key',
      models: ['gpt-image-1'],
    });
    await gateway.deps.db.query("UPDATE upstream_accounts SET status = 'disabled' WHERE id = $1", [id]);
    gateway.services.upstreams.invalidate();
    const key = (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name: 'refuse-images' }))
      .secret;
    const reply = await call(
      '/v1/images/generations',
      { model: 'gpt-image-1', prompt: 'a lighthouse' },
      { authorization: `Bearer ${key}` },
    );
    expect(reply.status).toBe(503);
    expect(reply.json.error.message).toBe(
      'no available account: all 1 account of group refuse-images serving model gpt-image-1 is disabled',
    );
  });

  it('some cooling down and the rest disabled: both counted, the earliest return and Retry-After', async () => {
    const { key } = await group('refuse-mixed', [{ prefix: '/_fault/503' }, { disabled: true }]);
    expect((await messages(key)).status).toBe(503);
    const reply = await messages(key);
    expect(reply.status).toBe(503);
    expect(reply.json.error.message).toMatch(
      /^no available account: all 2 accounts of group refuse-mixed serving model claude-sonnet-4-5 are unavailable: 1 cooling down after failures \(the earliest is back at \S+\), 1 disabled$/,
    );
    expect(Number(reply.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  async function routingOf(requestId: string, key: string): Promise<{ status: number; body: Record<string, any> }> {
    // The stored chain is written without delaying the answer: wait for it a little.
    for (let attempt = 0; ; attempt++) {
      const response = await fetch(`${gateway.url}/api/v1/me/usage/${requestId}/routing`, { headers: { 'x-api-key': key } });
      if (response.status !== 404 || attempt === 20)
        return { status: response.status, body: (await response.json()) as Record<string, any> };
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  it('a request one account served after another failed is answered, and its decision chain is stored for the usage detail', async () => {
    const { key, ids } = await group('refuse-recovered', [{ prefix: '/_fault/503' }, {}, { disabled: true }]);
    const reply = await messages(key);
    expect(reply.status).toBe(200);
    const routing = await routingOf(reply.headers.get('x-request-id')!, key);
    expect(routing.status).toBe(200);
    expect(routing.body).toMatchObject({ object: 'routing_decision', model: 'claude-sonnet-4-5', outcome: 'served' });
    expect(routing.body.steps).toEqual([
      { upstream_account_id: ids[0], protocol: 'messages', outcome: 'failed', failure: 'overloaded (HTTP 503)' },
      { upstream_account_id: ids[1], protocol: 'messages', outcome: 'served' },
      { upstream_account_id: ids[2], protocol: 'messages', outcome: 'skipped', reason: 'disabled' },
    ]);
    expect(JSON.stringify(routing.body)).not.toContain('refuse-recovered-');

    // A refusal is stored too (it has no usage row); a plain request and another account's request have no record.
    const down = await group('refuse-recorded', [{ prefix: '/_fault/529' }, { disabled: true }]);
    expect((await messages(down.key)).status).toBe(529);
    const refused = await messages(down.key);
    expect(refused.status).toBe(503);
    const refusedRouting = await routingOf(refused.headers.get('x-request-id')!, down.key);
    expect(refusedRouting.body.outcome).toBe('refused');
    expect(refusedRouting.body.steps.map((step: { outcome: string; reason?: string }) => `${step.outcome}:${step.reason ?? ''}`)).toEqual([
      'skipped:cooling_down',
      'skipped:disabled',
    ]);
    const plain = await messages(gateway.key);
    expect(plain.status).toBe(200);
    expect((await routingOf(plain.headers.get('x-request-id')!, gateway.key)).status).toBe(404);
  });
});
