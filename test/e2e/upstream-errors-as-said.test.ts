/**
 * Issue 25 item 4: on native pass-through, a client error the upstream answered and a 429/529 no
 * other account of the group absorbed reach the client as the upstream said them (status, body
 * bytes with request ids and `details`, retry-after), with the gateway's accounting headers; the
 * gateway's own account problems (401/403, 5xx) keep the gateway's envelope; translated paths keep
 * mapping into the caller's envelope. Nothing is billed (the usage stream a charge appends to stays
 * as it was, beside a control call that is charged).
 */
import { insertApiKey } from '../../src/keys/insert-api-key';
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import type { Protocol } from '../../src/ir/protocol';
import { expectNothingCharged } from '../support/charges';
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(90_000);

interface Answer {
  status: number;
  text: string;
  json: any;
  headers: Headers;
}

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, text, json, headers: response.headers };
}

describe('upstream errors reach the client as the upstream said them', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { UPSTREAM_COOLDOWN_MS: '1' } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  /** A group whose accounts (one per base-URL suffix) all speak `protocol`, and a key in it. */
  async function keyFor(name: string, protocol: Protocol, models: string[], prefixes: string[], apiKey = 'sim-key'): Promise<string> {
    const groupId = await createGroup(gateway.deps.db, { name, family: null });
    for (const [index, prefix] of prefixes.entries()) {
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: `${name}-${index}`,
        protocol,
        baseUrl: gateway.sim.url + prefix,
        apiKey,
        models,
        priority: index,
      });
    }
    gateway.services.upstreams.invalidate();
    return (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name })).secret;
  }

  const messages = (key: string, body: Record<string, unknown>) =>
    post(
      `${gateway.url}/v1/messages`,
      { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }], ...body },
    );
  /** A call on the same account, through the bootstrap key's healthy group: charged. */
  const control = async () => {
    expect((await messages(gateway.key, {})).status).toBe(200);
  };
  /** The assertions of `refused` hold, and none of its calls is charged. */
  const free = (refused: () => Promise<void>) => expectNothingCharged(gateway, refused, control);

  it("a Messages 400 keeps the upstream's body bytes, its request_id and request-id header, plus the accounting headers", async () => {
    const key = await keyFor('said-400', 'messages', ['claude-sonnet-4-5'], ['']);
    await free(async () => {
      const answer = await messages(key, { max_tokens: 100_000 });
      expect(answer.status).toBe(400);
      expect(answer.json.type).toBe('error');
      expect(answer.json.error.type).toBe('invalid_request_error');
      expect(answer.json.error.message).toMatch(/^max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens/);
      expect(answer.json.request_id).toMatch(/^req_011/);
      expect(answer.headers.get('request-id')).toBe(answer.json.request_id);
      expect(answer.headers.get('x-ratelimit-limit-requests')).not.toBeNull();
      // Byte for byte what the simulator wrote (its JSON.stringify of the envelope).
      expect(answer.text).toBe(JSON.stringify(answer.json));
    });
  });

  it('a Google 429 that no other account absorbs keeps its QuotaFailure and RetryInfo details and retry-after', async () => {
    const key = await keyFor('said-429-google', 'generate-content', ['gemini-2.5-flash'], ['/_fault/429', '/_fault/429']);
    await free(async () => {
      const answer = await post(
        `${gateway.url}/v1beta/models/gemini-2.5-flash:generateContent`,
        { 'x-goog-api-key': key },
        { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] },
      );
      expect(answer.status).toBe(429);
      expect(answer.json.error.status).toBe('RESOURCE_EXHAUSTED');
      expect(answer.json.error.message).not.toMatch(/no available account/);
      const types = (answer.json.error.details as Array<Record<string, unknown>>).map((detail) => detail['@type']);
      expect(types).toEqual(['type.googleapis.com/google.rpc.QuotaFailure', 'type.googleapis.com/google.rpc.RetryInfo']);
      expect(answer.headers.get('retry-after')).toBe('1');
      expect(answer.headers.get('x-quota-remaining-credits')).not.toBeNull();
    });
  });

  it('a Messages 529 (streamed request) reaches the client as Anthropic\'s overloaded_error, not "no available account"', async () => {
    const key = await keyFor('said-529', 'messages', ['claude-sonnet-4-5'], ['/_fault/529']);
    await free(async () => {
      const answer = await messages(key, { stream: true });
      expect(answer.status).toBe(529);
      expect(answer.json).toMatchObject({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
      expect(answer.json.request_id).toMatch(/^req_011/);
    });
  });

  it('a 429 another account absorbs is served by that account', async () => {
    const key = await keyFor('said-429-absorbed', 'messages', ['claude-sonnet-4-5'], ['/_fault/429', '']);
    const answer = await messages(key, {});
    expect(answer.status).toBe(200);
  });

  it("the gateway's own account problems keep the gateway's envelope: a rejected credential, a 500", async () => {
    const rejected = await keyFor('said-401', 'messages', ['claude-sonnet-4-5'], [''], 'not-the-sim-key');
    await free(async () => {
      const denied = await messages(rejected, {});
      expect(denied.status).toBe(502);
      expect(denied.json.error.message).toMatch(/^no available account/);
      const failing = await keyFor('said-500', 'messages', ['claude-sonnet-4-5'], ['/_fault/500']);
      const failed = await messages(failing, {});
      expect(failed.status).toBe(502);
      expect(failed.json.error.message).toMatch(/^no available account/);
    });
  });

  it("a translated 429 is mapped into the caller's envelope with its type and retry-after", async () => {
    const key = await keyFor('said-429-translated', 'messages', ['claude-sonnet-4-5'], ['/_fault/429']);
    await free(async () => {
      const answer = await post(
        `${gateway.url}/v1/chat/completions`,
        { authorization: `Bearer ${key}` },
        { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello' }] },
      );
      expect(answer.status).toBe(429);
      expect(answer.json.error.type).toBe('rate_limit_error');
      expect(answer.json.error.message).toMatch(/would exceed the rate limit for your organization/);
      expect(answer.headers.get('retry-after')).toBe('1');
    });
  });
});
