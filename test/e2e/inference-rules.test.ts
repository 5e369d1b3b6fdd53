/**
 * Issue 5: authentication per protocol, the errors of interface section 7 that inference owns,
 * previous_response_id on a family-1 model, client disconnects, failover and cut streams.
 */
import OpenAI from 'openai';
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

const MESSAGES_BODY = { model: 'claude-sonnet-4-5', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };

async function post(
  url: string,
  body: unknown,
  headers: Record<string, string>,
): Promise<{ status: number; json: Record<string, any>; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  let json: Record<string, any> = {};
  try {
    json = JSON.parse(text);
  } catch {
    json = { raw: text };
  }
  return { status: response.status, json, headers: response.headers };
}

describe('inference rules', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '1500', UPSTREAM_COOLDOWN_MS: '60000' } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  /** A group whose accounts point at the simulator through fault/latency prefixes, and a key in it. */
  async function groupWithAccounts(
    name: string,
    prefixes: string[],
    protocol: 'messages' | 'chat' = 'messages',
    models = ['claude-sonnet-4-5'],
  ): Promise<string> {
    const groupId = await createGroup(gateway.deps.db, { name, family: null });
    for (const [index, prefix] of prefixes.entries()) {
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: `${name}-${index}`,
        protocol,
        baseUrl: gateway.sim.url + prefix,
        apiKey: 'sim-key',
        models,
        priority: index,
      });
    }
    gateway.services.upstreams.invalidate();
    return (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name })).secret;
  }

  describe('authentication', () => {
    it('Messages accepts x-api-key and Bearer; x-api-key wins when both are sent', async () => {
      const url = `${gateway.url}/v1/messages`;
      const version = { 'anthropic-version': '2023-06-01' };
      expect((await post(url, MESSAGES_BODY, { ...version, 'x-api-key': gateway.key })).status).toBe(200);
      expect((await post(url, MESSAGES_BODY, { ...version, authorization: `Bearer ${gateway.key}` })).status).toBe(200);
      expect(
        (
          await post(url, MESSAGES_BODY, {
            ...version,
            'x-api-key': gateway.key,
            authorization: 'Bearer sk-svc-wrongwrongwrongwrongwrongwrong',
          })
        ).status,
      ).toBe(200);
      const wrong = await post(url, MESSAGES_BODY, {
        ...version,
        'x-api-key': 'sk-svc-wrongwrongwrongwrongwrongwrong',
        authorization: `Bearer ${gateway.key}`,
      });
      expect(wrong.status).toBe(401);
      expect(wrong.json).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.any(String) } });
    });

    it('Messages requires the version header, under either name', async () => {
      const url = `${gateway.url}/v1/messages`;
      const missing = await post(url, MESSAGES_BODY, { 'x-api-key': gateway.key });
      expect(missing.status).toBe(400);
      expect(missing.json.error.type).toBe('invalid_request_error');
      expect(missing.json.error.message).toMatch(/messages-version/);
      expect((await post(url, MESSAGES_BODY, { 'x-api-key': gateway.key, 'messages-version': '2023-06-01' })).status).toBe(200);
    });

    it('Responses accepts only Bearer', async () => {
      const url = `${gateway.url}/v1/responses`;
      const body = { model: 'gpt-5', input: 'Hello' };
      expect((await post(url, body, { authorization: `Bearer ${gateway.key}` })).status).toBe(200);
      const viaHeader = await post(url, body, { 'x-api-key': gateway.key });
      expect(viaHeader.status).toBe(401);
      expect(viaHeader.json.error.code).toBe('invalid_api_key');
    });

    it('Chat accepts both headers and ignores the organisation and project headers', async () => {
      const url = `${gateway.url}/v1/chat/completions`;
      const body = { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hello' }] };
      expect(
        (await post(url, body, { authorization: `Bearer ${gateway.key}`, 'openai-organization': 'org-x', 'openai-project': 'proj-y' }))
          .status,
      ).toBe(200);
      expect((await post(url, body, { 'x-api-key': gateway.key })).status).toBe(200);
    });

    it('Generate-Content accepts ?key= and x-goog-api-key, under /v1beta and /v1', async () => {
      const body = { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] };
      expect((await post(`${gateway.url}/v1beta/models/gemini-2.5-flash:generateContent?key=${gateway.key}`, body, {})).status).toBe(200);
      expect(
        (await post(`${gateway.url}/v1/models/gemini-2.5-flash:generateContent`, body, { 'x-goog-api-key': gateway.key })).status,
      ).toBe(200);
      const missing = await post(`${gateway.url}/v1beta/models/gemini-2.5-flash:generateContent`, body, {});
      expect(missing.status).toBe(401);
      expect(missing.json.error.status).toBe('UNAUTHENTICATED');
    });

    it('never reads credentials from the body', async () => {
      const response = await post(
        `${gateway.url}/v1/chat/completions`,
        { model: 'gpt-4.1', api_key: gateway.key, key: gateway.key, messages: [{ role: 'user', content: 'x' }] },
        {},
      );
      expect(response.status).toBe(401);
    });
  });

  describe("errors in the caller's envelope", () => {
    const chat = (body: unknown, key = () => gateway.key) =>
      post(`${gateway.url}/v1/chat/completions`, body, { authorization: `Bearer ${key()}` });
    const messages = (body: unknown) =>
      post(`${gateway.url}/v1/messages`, body, { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' });

    it('unknown and retired slugs are 400 unsupported_model (Responses: model_not_found)', async () => {
      const unknownChat = await chat({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] });
      expect([unknownChat.status, unknownChat.json.error.code]).toEqual([400, 'unsupported_model']);
      const retired = await messages({ ...MESSAGES_BODY, model: 'claude-2.1' });
      expect([retired.status, retired.json.error.type]).toEqual([400, 'unsupported_model']);
      const responses = await post(
        `${gateway.url}/v1/responses`,
        { model: 'no-such-model', input: 'x' },
        { authorization: `Bearer ${gateway.key}` },
      );
      expect([responses.status, responses.json.error.code]).toEqual([400, 'model_not_found']);
    });

    it('a model outside the key\'s group is 503 "no available account"', async () => {
      const groupId = (await gateway.deps.db.query<{ id: number }>("SELECT id FROM routing_groups WHERE name = 'openai'")).rows[0].id;
      const openaiKey = (
        await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name: 'openai only' })
      ).secret;
      const response = await chat({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'x' }] }, () => openaiKey);
      expect(response.status).toBe(503);
      expect(response.json.error.type).toBe('api_error');
      expect(response.json.error.message).toMatch(/no available account/);
      expect((await chat({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'x' }] }, () => openaiKey)).status).toBe(200);
    });

    it('a protocol the model does not allow is a clear 400', async () => {
      const response = await messages({ ...MESSAGES_BODY, model: 'mistral-large' });
      expect(response.status).toBe(400);
      expect(response.json.error.message).toMatch(/Chat Completions/);
      const gc = await post(
        `${gateway.url}/v1beta/models/gpt-4.1:generateContent?key=${gateway.key}`,
        { contents: [{ role: 'user', parts: [{ text: 'x' }] }] },
        {},
      );
      expect(gc.status).toBe(400);
      expect(gc.json.error.status).toBe('INVALID_ARGUMENT');
    });

    it.each([
      [
        'an image to a text-only model',
        {
          model: 'deepseek-v3',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'x' },
                { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              ],
            },
          ],
        },
        /image/,
      ],
      [
        'json_schema to a model without it',
        {
          model: 'kimi-k2',
          messages: [{ role: 'user', content: 'x' }],
          response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object' } } },
        },
        /json_schema/,
      ],
      ['logprobs to a model without the tag', { model: 'gpt-5', messages: [{ role: 'user', content: 'x' }], logprobs: true }, /logprobs/],
    ])('capability gate: %s is 400 unsupported_feature', async (_name, body, message) => {
      const response = await chat(body);
      expect(response.status).toBe(400);
      expect(response.json.error.code).toBe('unsupported_feature');
      expect(response.json.error.message).toMatch(message);
    });

    it('max_tokens above the model maximum is 400 naming the field', async () => {
      const response = await messages({ ...MESSAGES_BODY, max_tokens: 1_000_000 });
      expect(response.status).toBe(400);
      expect(response.json.error.message).toMatch(/max_tokens/);
    });

    it('invalid JSON, a non-object body and an unknown path are rendered in the protocol envelope', async () => {
      const bad = await post(`${gateway.url}/v1/messages`, '{"model": ', { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' });
      expect(bad.status).toBe(400);
      expect(bad.json.type).toBe('error');
      const list = await chat([1, 2]);
      expect(list.status).toBe(400);
      const unknown = await post(`${gateway.url}/v1/nothing-here`, {}, { authorization: `Bearer ${gateway.key}` });
      expect(unknown.status).toBe(404);
      expect(unknown.json.error.message).toMatch(/no route/);
    });

    it('a body over the cap is 413', async () => {
      const huge = { model: 'gpt-4.1', messages: [{ role: 'user', content: 'x'.repeat(21 * 1024 * 1024) }] };
      const response = await chat(huge);
      expect(response.status).toBe(413);
    });

    it("an upstream 4xx is re-wrapped in the caller's envelope", async () => {
      // A tool_result without a preceding tool_use is refused by the Messages upstream (the simulator is strict).
      const response = await messages({
        ...MESSAGES_BODY,
        messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_missing', content: 'x' }] }],
      });
      expect(response.status).toBe(400);
      expect(response.json.type).toBe('error');
      expect(response.json.error.type).toBe('invalid_request_error');
    });
  });

  it('previous_response_id chains on a family-1 model', async () => {
    const client = new OpenAI({ apiKey: gateway.key, baseURL: `${gateway.url}/v1`, maxRetries: 0 });
    const first = await client.responses.create({ model: 'claude-sonnet-4-5', input: 'My name is Ada Lovelace' });
    expect(first.id).toMatch(/^resp_/);
    gateway.sim.clearRequests();
    const second = await client.responses.create({ model: 'claude-sonnet-4-5', input: 'What is my name?', previous_response_id: first.id });
    expect(second.output_text).toContain('What is my name?');
    const upstream = gateway.sim.requests.find((r) => r.path.startsWith('/v1/messages'));
    const sent = JSON.stringify(upstream?.body);
    expect(sent).toContain('My name is Ada Lovelace');
    expect(sent).toContain(first.output_text);
    // A third link keeps the whole chain; a streamed link chains too.
    const third = await client.responses
      .stream({ model: 'claude-sonnet-4-5', input: 'And again?', previous_response_id: second.id })
      .finalResponse();
    expect(third.status).toBe('completed');
    const unknown = await client.responses
      .create({ model: 'claude-sonnet-4-5', input: 'x', previous_response_id: 'resp_unknown' })
      .catch((e: unknown) => e);
    expect((unknown as { status?: number }).status).toBe(400);
  });

  describe('reliability', () => {
    it('fails over to the second account when the first returns 500', async () => {
      const key = await groupWithAccounts('failover-500', ['/_fault/500', '']);
      gateway.sim.clearRequests();
      const response = await post(`${gateway.url}/v1/messages`, MESSAGES_BODY, { 'x-api-key': key, 'anthropic-version': '2023-06-01' });
      expect(response.status).toBe(200);
      expect(response.json.content[0].text).toContain('Hello');
      expect(gateway.sim.requests.map((r) => r.status)).toEqual([500, 200]);
    });

    it("fails over when Google refuses the first account's key (400 API_KEY_INVALID), and never blames the caller", async () => {
      const groupId = await createGroup(gateway.deps.db, { name: 'gc-wrong-key', family: null });
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        protocol: 'generate-content',
        baseUrl: gateway.sim.url,
        apiKey: 'wrong-key',
        models: ['gemini-2.5-flash'],
        priority: 0,
      });
      const onlyWrong = await createGroup(gateway.deps.db, { name: 'gc-only-wrong-key', family: null });
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId: onlyWrong,
        protocol: 'generate-content',
        baseUrl: gateway.sim.url,
        apiKey: 'wrong-key',
        models: ['gemini-2.5-flash'],
      });
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        protocol: 'generate-content',
        baseUrl: gateway.sim.url,
        apiKey: 'sim-key',
        models: ['gemini-2.5-flash'],
        priority: 1,
      });
      gateway.services.upstreams.invalidate();
      const body = { contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] };
      const key = (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name: 'gc-wrong' }))
        .secret;
      expect((await post(`${gateway.url}/v1beta/models/gemini-2.5-flash:generateContent?key=${key}`, body, {})).status).toBe(200);
      const lonely = (
        await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId: onlyWrong, name: 'gc-lonely' })
      ).secret;
      const refused = await post(`${gateway.url}/v1beta/models/gemini-2.5-flash:generateContent?key=${lonely}`, body, {});
      expect(refused.status).toBe(502);
      expect(refused.json.error.status).toBe('INTERNAL');
    });

    it('fails over when the first account hangs past the first-byte timeout', async () => {
      const key = await groupWithAccounts('failover-hang', ['/_fault/hang', '']);
      const response = await post(
        `${gateway.url}/v1/messages`,
        { ...MESSAGES_BODY, stream: true },
        { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
      );
      expect(response.status).toBe(200);
      expect(response.json.raw).toContain('event: message_stop');
    });

    it('answers 503 naming the cooldown when every account failed', async () => {
      const key = await groupWithAccounts('all-down', ['/_fault/503']);
      const first = await post(`${gateway.url}/v1/messages`, MESSAGES_BODY, { 'x-api-key': key, 'anthropic-version': '2023-06-01' });
      expect(first.status).toBeGreaterThanOrEqual(500);
      const second = await post(`${gateway.url}/v1/messages`, MESSAGES_BODY, { 'x-api-key': key, 'anthropic-version': '2023-06-01' });
      expect(second.status).toBe(503);
      expect(second.json.error.message).toMatch(/cooling down/);
    });

    it("a stream cut after the first byte ends with the protocol's error frame", async () => {
      const key = await groupWithAccounts('cut', ['/_fault/cut', '']);
      const messagesCut = await fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({ ...MESSAGES_BODY, stream: true, messages: [{ role: 'user', content: 'repeat:40:a long answer ' }] }),
      });
      const text = await messagesCut.text();
      expect(messagesCut.status).toBe(200);
      expect(text).toContain('event: message_start');
      expect(text).toMatch(/event: error\ndata: \{"type":"error","error":\{"type":"(overloaded_error|api_error)"/);
      expect(text).not.toContain('event: message_stop');
    });

    it('a client that disconnects mid-stream aborts the upstream request', async () => {
      const key = await groupWithAccounts('slow', ['/_latency/0/100']);
      gateway.sim.clearRequests();
      const controller = new AbortController();
      const response = await fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        signal: controller.signal,
        headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        body: JSON.stringify({
          ...MESSAGES_BODY,
          stream: true,
          max_tokens: 2000,
          messages: [{ role: 'user', content: 'repeat:100:slow words ' }],
        }),
      });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      const deadline = Date.now() + 5_000;
      while (Date.now() < deadline && !gateway.sim.requests[0]?.aborted) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(gateway.sim.requests[0]?.aborted).toBe(true);
      expect(gateway.sim.requests[0]?.completed).toBe(false);
    });
  });
});
