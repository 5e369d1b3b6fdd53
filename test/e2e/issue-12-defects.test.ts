/**
 * Issue 12: the gateway-side defects real clients hit, each through the whole stack (API, simulator,
 * PostgreSQL, Redis): output caps above a model's maximum (1), `message_start` input tokens (4),
 * Chat `max_tokens` to gpt-5 (5), the counting endpoints (6), dated names (7), warnings on native
 * pass-through (9) and the names the CLIs ask for by default (10).
 */
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

interface Answer {
  status: number;
  json: Record<string, any>;
  headers: Headers;
  text: string;
}

async function post(url: string, body: unknown, headers: Record<string, string>): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: Record<string, any> = {};
  try {
    json = JSON.parse(text);
  } catch {
    json = {};
  }
  return { status: response.status, json, headers: response.headers, text };
}

describe('issue 12 defects through the gateway', () => {
  let gateway: TestGateway;
  let messagesHeaders: Record<string, string>;
  let bearer: Record<string, string>;
  let google: Record<string, string>;
  beforeAll(async () => {
    gateway = await startTestGateway();
    messagesHeaders = { 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' };
    bearer = { authorization: `Bearer ${gateway.key}` };
    google = { 'x-goog-api-key': gateway.key };
  });
  afterAll(async () => {
    await gateway.close();
  });

  const messages = (body: Record<string, unknown>) =>
    post(`${gateway.url}/v1/messages`, { messages: [{ role: 'user', content: 'Hello' }], ...body }, messagesHeaders);
  const lastUpstreamBody = () => gateway.sim.requests.at(-1)?.body as Record<string, any>;

  describe('issue 12 defect 1: max_tokens above the catalog cap', () => {
    it("passes Claude Code's 32,000 (budget 31,999) and the AI SDK's 64,000 to claude-sonnet-4-5 natively", async () => {
      const claudeCode = await messages({
        model: 'claude-sonnet-4-5',
        max_tokens: 32_000,
        thinking: { type: 'enabled', budget_tokens: 31_999 },
      });
      expect(claudeCode.status).toBe(200);
      expect((await messages({ model: 'claude-sonnet-4-5', max_tokens: 64_000 })).status).toBe(200);
    });

    it('clamps a translated target to its maximum, keeps the budget below it and says so', async () => {
      const answer = await messages({ model: 'deepseek-v3.2', max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 31_999 } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-gateway-warnings')).toContain('max_tokens');
      expect(lastUpstreamBody().max_tokens).toBe(8_192);
    });

    it('leaves the verdict to the provider on native pass-through', async () => {
      const answer = await messages({ model: 'claude-sonnet-4-5', max_tokens: 64_001 });
      expect(answer.status).toBe(400);
      expect(answer.json.error.message).toContain('64000');
    });
  });

  describe('issue 12 defect 4: input tokens in message_start of a translated stream', () => {
    it('reports the request estimate first and the upstream count last', async () => {
      const answer = await messages({ model: 'deepseek-v3.2', max_tokens: 100, stream: true });
      const events = answer.text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)));
      const start = events.find((event) => event.type === 'message_start');
      const delta = events.find((event) => event.type === 'message_delta');
      expect(start.message.usage.input_tokens).toBeGreaterThan(0);
      expect(delta.usage.input_tokens).toBeGreaterThan(0);
    });
  });

  describe('issue 12 defect 5: Chat max_tokens to a reasoning model', () => {
    it('reaches gpt-5 as max_completion_tokens on pass-through', async () => {
      const answer = await post(
        `${gateway.url}/v1/chat/completions`,
        { model: 'gpt-5', max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] },
        bearer,
      );
      expect(answer.status).toBe(200);
      const upstream = lastUpstreamBody();
      expect(upstream.max_completion_tokens).toBe(100);
      expect(upstream.max_tokens).toBeUndefined();
    });
  });

  describe('issue 12 defect 6: counting endpoints', () => {
    const count = { role: 'user', content: 'How many tokens is this sentence?' };

    it('Messages count_tokens is counted by a Messages upstream', async () => {
      const answer = await post(
        `${gateway.url}/v1/messages/count_tokens`,
        { model: 'claude-sonnet-4-5-20250929', messages: [count] },
        messagesHeaders,
      );
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-gateway-token-count')).toBe('upstream');
      const billed = await messages({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [count] });
      expect(answer.json).toEqual({ input_tokens: billed.json.usage.input_tokens });
    });

    it('is estimated for a family whose API cannot count', async () => {
      const answer = await post(`${gateway.url}/v1/messages/count_tokens`, { model: 'deepseek-v3.2', messages: [count] }, messagesHeaders);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-gateway-token-count')).toBe('estimate');
      expect(answer.json.input_tokens).toBeGreaterThan(0);
    });

    it('Generate-Content :countTokens and Responses input_tokens', async () => {
      const gc = await post(
        `${gateway.url}/v1beta/models/gemini-2.5-flash:countTokens`,
        { contents: [{ role: 'user', parts: [{ text: 'count me' }] }] },
        google,
      );
      expect(gc.status).toBe(200);
      expect(gc.headers.get('x-gateway-token-count')).toBe('upstream');
      expect(gc.json.totalTokens).toBeGreaterThan(0);
      const responses = await post(`${gateway.url}/v1/responses/input_tokens`, { model: 'gpt-5', input: 'count me' }, bearer);
      expect(responses.status).toBe(200);
      expect(responses.headers.get('x-gateway-token-count')).toBe('upstream');
      expect(responses.json).toEqual({ object: 'response.input_tokens', input_tokens: expect.any(Number) });
    });

    it("answers errors in the caller's envelope and never touches the wallet", async () => {
      const before = await gateway.deps.db.query('SELECT count(*)::int AS n FROM ledger_entries');
      const noKey = await post(`${gateway.url}/v1/messages/count_tokens`, { model: 'claude-sonnet-4-5', messages: [count] }, {});
      expect(noKey.status).toBe(401);
      expect(noKey.json).toEqual({ type: 'error', error: { type: 'authentication_error', message: expect.any(String) } });
      const badBody = await post(
        `${gateway.url}/v1/messages/count_tokens`,
        { model: 'claude-sonnet-4-5', messages: 'nope' },
        messagesHeaders,
      );
      expect(badBody.status).toBe(400);
      expect(badBody.json.error.type).toBe('invalid_request_error');
      const unknown = await post(
        `${gateway.url}/v1beta/models/gemini-9:countTokens`,
        { contents: [{ role: 'user', parts: [{ text: 'x' }] }] },
        google,
      );
      // As Google's own API answers an unknown model, and as inference does.
      expect(unknown.status).toBe(404);
      expect(unknown.json.error.status).toBe('NOT_FOUND');
      const after = await gateway.deps.db.query('SELECT count(*)::int AS n FROM ledger_entries');
      expect(after.rows[0].n).toBe(before.rows[0].n);
    });
  });

  describe('issue 12 defect 7: dated model names', () => {
    it('resolve to their catalog model on every protocol; the listing stays by slug', async () => {
      expect((await messages({ model: 'claude-sonnet-4-5-20250929', max_tokens: 10 })).status).toBe(200);
      expect((await messages({ model: 'claude-haiku-4-5-20251001', max_tokens: 10 })).status).toBe(200);
      const gemini = await post(
        `${gateway.url}/v1beta/models/gemini-2.5-flash-001:generateContent`,
        { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
        google,
      );
      expect(gemini.status).toBe(200);
      const listing = (await fetch(`${gateway.url}/v1/models`, { headers: bearer }).then((r) => r.json())) as {
        data: Array<{ id: string }>;
      };
      const ids = listing.data.map((model) => model.id);
      expect(ids).toContain('claude-sonnet-4-5');
      expect(ids).not.toContain('claude-sonnet-4-5-20250929');
    });
  });

  describe('issue 12 defect 9: warnings on native pass-through describe what happened', () => {
    const withCacheControl = {
      max_tokens: 50,
      tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: {} } }],
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'get_weather', input: {} }] },
        {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'sunny', cache_control: { type: 'ephemeral' } }],
        },
      ],
    };

    it('says nothing was dropped when the body went intact', async () => {
      const answer = await messages({ ...withCacheControl, model: 'claude-sonnet-4-5' });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-gateway-warnings')).toBeNull();
      expect(lastUpstreamBody().messages[2].content[0].cache_control).toEqual({ type: 'ephemeral' });
    });

    it('still reports it when translated', async () => {
      const answer = await messages({ ...withCacheControl, model: 'gpt-4.1' });
      expect(answer.status).toBe(200);
      expect(answer.headers.get('x-gateway-warnings')).toContain('messages.2.content.0.cache_control');
    });
  });

  describe('issue 12 defect 10: the names each CLI asks for by default', () => {
    it.each([
      'gemini-2.5-pro',
      'gemini-3-pro-preview',
      'gemini-3.1-pro-preview',
      'gemini-3-flash-preview',
      'gemini-3.5-flash',
      'gemini-3.5-flash-lite',
      'gemini-3.1-flash-lite',
    ])('Gemini CLI: %s', async (model) => {
      const answer = await post(
        `${gateway.url}/v1beta/models/${model}:streamGenerateContent?alt=sse`,
        { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
        google,
      );
      expect(answer.status).toBe(200);
    });

    it.each(['gpt-6.1-sol', 'gpt-5-codex', 'gpt-5.1-codex', 'gpt-5'])('Codex: %s', async (model) => {
      const answer = await post(`${gateway.url}/v1/responses`, { model, input: 'hi', store: false }, bearer);
      expect(answer.status).toBe(200);
    });

    it.each(['claude-opus-5-5', 'claude-haiku-5-5', 'claude-sonnet-4-5-20250929', 'claude-haiku-4-5-20251001', 'claude-opus-4-5-20251101'])(
      'Claude Code: %s',
      async (model) => {
        expect((await messages({ model, max_tokens: 32_000 })).status).toBe(200);
      },
    );
  });
});
