/**
 * Issue 25 item 8: nothing a real OpenAI upstream would refuse. Every Chat and Responses body the
 * gateway emits here is validated against OpenAI's OpenAPI document (test/support/openai-spec.ts;
 * its known under-declarations are listed there with the reason): answers whole and streamed from
 * each upstream family with tool calls and reasoning, error envelopes (an invalid request, an
 * unknown model, a context overflow, an upstream error as said, the gateway's own), compaction
 * answers (`/v1/responses/compact` and a `compaction_trigger`) and the Responses WebSocket frames.
 * Every request the gateway sends to an OpenAI-protocol upstream during the whole file (the
 * simulator's request log, checked after each test) is validated as the real API reads it.
 */
import type { CatalogModel } from '../../src/catalog/model';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import type { Protocol } from '../../src/ir/protocol';
import type { SimRequestLog } from '../../scripts/provider-sim/server';
import { ssePayloads } from '../support/capture-shape';
import { emittedProblems, requestProblems, type OpenAiRequestSchema } from '../support/openai-spec';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { WebSocketClient, type Frame } from '../support/ws-client';

jest.setTimeout(120_000);

const TOOLS_CHAT = [
  {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  },
];
const TOOLS_RESPONSES = [
  {
    type: 'function',
    name: 'get_weather',
    description: 'weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    strict: false,
  },
];

/** The body schema of each endpoint the gateway calls on an OpenAI-protocol upstream. */
const REQUEST_SCHEMAS: Record<string, OpenAiRequestSchema> = {
  '/v1/chat/completions': 'CreateChatCompletionRequest',
  '/v1/responses': 'CreateResponse',
  '/v1/responses/compact': 'CompactResponseMethodPublicBody',
};

const HISTORY = [
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Remember the codeword zebra-4412 and fix the build.' }] },
  { type: 'message', role: 'assistant', content: 'Noted. The build fails in parser.ts.' },
  { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
  { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
];

/** 48 KB of text: about 12 000 simulator tokens, over the 8 192 of `sim-small-context`. */
const LONG = 'The quick brown fox jumps over the lazy dog. '.repeat(1100);

describe("OpenAI's OpenAPI document accepts what the gateway emits and sends", () => {
  let gateway: TestGateway;
  // A 429 puts an account in cooldown: over at once, so each test's group is available again.
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { UPSTREAM_COOLDOWN_MS: '1' } });
  });
  afterAll(async () => {
    await gateway?.close();
  });

  /** Upstream requests validated so far, by path; the log is never cleared, so none escapes. */
  const validated = new Map<string, number>();
  let lastChecked = 0;
  function validateUpstreamRequests(): void {
    const fresh = gateway.sim.requests.filter((entry: SimRequestLog) => entry.id > lastChecked);
    lastChecked = gateway.sim.requests.at(-1)?.id ?? lastChecked;
    for (const entry of fresh) {
      if (entry.protocol !== 'chat' && entry.protocol !== 'responses') continue;
      const path = entry.path.split('?')[0]!;
      const schema = REQUEST_SCHEMAS[path];
      expect({ method: entry.method, path, known: schema !== undefined }).toEqual({ method: 'POST', path, known: true });
      const problems = requestProblems(schema!, entry.body);
      // The body is shown only when it fails, to read what was sent.
      expect({ path, problems, body: problems.length > 0 ? entry.body : undefined }).toEqual({ path, problems: [], body: undefined });
      validated.set(path, (validated.get(path) ?? 0) + 1);
    }
  }
  afterEach(() => validateUpstreamRequests());

  async function post(path: string, body: Record<string, unknown>, key = gateway.key): Promise<{ status: number; text: string }> {
    const response = await fetch(gateway.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
    });
    return { status: response.status, text: await response.text() };
  }

  /** An error answer: the status expected, and a body the document's ErrorResponse accepts. */
  async function expectErrorEnvelope(answer: Promise<{ status: number; text: string }>, status: number): Promise<Record<string, any>> {
    const { status: actual, text } = await answer;
    const body = JSON.parse(text);
    expect({ status: actual, problems: emittedProblems('ErrorResponse', body) }).toEqual({ status, problems: [] });
    return body.error;
  }

  /** Chat answers (whole and streamed) validate; returns the whole answer. */
  async function chat(body: Record<string, unknown>): Promise<Record<string, any>> {
    const whole = await post('/v1/chat/completions', body);
    expect(whole.status).toBe(200);
    const answer = JSON.parse(whole.text);
    expect({ model: body.model, problems: emittedProblems('CreateChatCompletionResponse', answer) }).toEqual({
      model: body.model,
      problems: [],
    });
    const streamed = await post('/v1/chat/completions', { ...body, stream: true, stream_options: { include_usage: true } });
    expect(streamed.status).toBe(200);
    const chunks = ssePayloads(streamed.text) as Array<Record<string, any>>;
    for (const chunk of chunks)
      expect({ model: body.model, problems: emittedProblems('CreateChatCompletionStreamResponse', chunk) }).toEqual({
        model: body.model,
        problems: [],
      });
    // With include_usage every chunk but the last says `usage: null`; the last carries it.
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(chunks.at(-1)!.usage).toEqual(expect.objectContaining({ prompt_tokens: expect.any(Number) }));
    return answer;
  }

  /** Responses answers (whole and streamed) validate; returns the whole answer. */
  async function responses(body: Record<string, unknown>): Promise<Record<string, any>> {
    const whole = await post('/v1/responses', body);
    expect(whole.status).toBe(200);
    const answer = JSON.parse(whole.text);
    expect({ model: body.model, problems: emittedProblems('Response', answer) }).toEqual({ model: body.model, problems: [] });
    const streamed = await post('/v1/responses', { ...body, stream: true });
    expect(streamed.status).toBe(200);
    for (const event of ssePayloads(streamed.text) as Array<Record<string, any>>) {
      expect({ model: body.model, type: event.type, problems: emittedProblems('ResponseStreamEvent', event) }).toEqual({
        model: body.model,
        type: event.type,
        problems: [],
      });
    }
    return answer;
  }

  const MODELS = ['claude-sonnet-4-5', 'gpt-4.1', 'gemini-2.5-flash', 'gemini-3-pro-preview', 'deepseek-v3.2'];

  it.each(MODELS)('Chat answers from %s: text, tool calls, reasoning', async (model) => {
    await chat({ model, messages: [{ role: 'user', content: 'Hello' }] });
    // gpt-4.1 has no reasoning (OpenAI refuses the parameter there).
    if (model !== 'gpt-4.1') {
      const thought = await chat({ model, reasoning_effort: 'low', messages: [{ role: 'user', content: 'Think, then say hello' }] });
      expect({ model, reasoning: typeof thought.choices[0].message.reasoning_content }).toEqual({ model, reasoning: 'string' });
    }
    const called = await chat({ model, messages: [{ role: 'user', content: 'Use get_weather please' }], tools: TOOLS_CHAT });
    const call = called.choices[0].message.tool_calls?.[0];
    expect(call).toBeDefined();
    expect(call.id.length).toBeLessThanOrEqual(64);
    // The conversation replayed as the gateway answered it, with the tool's result.
    await chat({
      model,
      tools: TOOLS_CHAT,
      messages: [
        { role: 'user', content: 'Use get_weather please' },
        called.choices[0].message,
        { role: 'tool', tool_call_id: call.id, content: 'sunny' },
      ],
    });
  });

  it.each(MODELS.filter((model) => model !== 'deepseek-v3.2'))('Responses answers from %s: text, tool calls, reasoning', async (model) => {
    await responses({ model, input: 'Hello', store: false });
    // gpt-4.1 has no reasoning (OpenAI refuses the parameter there).
    const reasoning = model === 'gpt-4.1' ? {} : { reasoning: { effort: 'low' }, include: ['reasoning.encrypted_content'] };
    const called = await responses({ model, input: 'Use get_weather please', tools: TOOLS_RESPONSES, store: false, ...reasoning });
    const call = called.output.find((item: { type: string }) => item.type === 'function_call');
    expect(call).toBeDefined();
    expect(called.usage.input_tokens_details).toEqual(expect.objectContaining({ cache_write_tokens: expect.any(Number) }));
    // Replaying the gateway's own output is a request the real API takes (call ids within 64 characters).
    const replay = {
      model,
      tools: TOOLS_RESPONSES,
      store: false,
      input: [
        { role: 'user', content: 'Use get_weather please' },
        ...called.output,
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    };
    expect({ model, problems: requestProblems('CreateResponse', replay) }).toEqual({ model, problems: [] });
    await responses(replay);
  });

  it('a replayed reasoning turn and translated callers send requests the real API accepts', async () => {
    const from = gateway.sim.requests.length;
    // Chat pass-through of an assistant turn as the gateway answered it (reasoning_content and the gateway's reasoning_signature).
    const thinking = await post('/v1/chat/completions', {
      model: 'claude-sonnet-4-5',
      reasoning_effort: 'low',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    const assistant = JSON.parse(thinking.text).choices[0].message;
    expect(assistant.reasoning_signature).toEqual(expect.any(String));
    for (const model of ['gpt-4.1', 'gpt-5']) {
      expect(
        (
          await post('/v1/chat/completions', {
            model,
            messages: [{ role: 'user', content: 'Hello' }, assistant, { role: 'user', content: 'again' }],
          })
        ).status,
      ).toBe(200);
    }
    // Translated callers onto OpenAI upstreams.
    const messages = await fetch(`${gateway.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({
        model: 'gpt-4.1',
        max_tokens: 64,
        tools: [{ name: 'get_weather', input_schema: TOOLS_CHAT[0].function.parameters }],
        messages: [{ role: 'user', content: 'Use get_weather please' }],
      }),
    });
    expect(messages.status).toBe(200);
    await responses({ model: 'gpt-5', input: 'Use get_weather please', tools: TOOLS_RESPONSES, store: true });

    // Validated after the test with every other request (afterEach).
    expect(
      gateway.sim.requests.slice(from).filter((entry) => entry.protocol === 'chat' || entry.protocol === 'responses').length,
    ).toBeGreaterThanOrEqual(5);
  });

  describe('error envelopes', () => {
    /** A key whose group routes `models` only to accounts at the simulator under `prefix`, speaking each protocol. */
    async function keyFor(name: string, prefix: string, accounts: Array<{ protocol: Protocol; models: string[] }>): Promise<string> {
      const groupId = await createGroup(gateway.deps.db, { name, family: null });
      for (const [index, account] of accounts.entries()) {
        await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
          groupId,
          name: `${name}-${index}`,
          protocol: account.protocol,
          baseUrl: gateway.sim.url + prefix,
          apiKey: 'sim-key',
          models: account.models,
        });
      }
      gateway.services.upstreams.invalidate();
      return (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name })).secret;
    }

    /** Small-context models (8 192 tokens) on an OpenAI and an Anthropic upstream. */
    function tinyModel(id: string, family: string, native: CatalogModel['nativeProtocols']): CatalogModel {
      return {
        ...structuredClone(gateway.deps.catalog.find('gpt-4.1')!),
        id,
        aliases: [],
        family,
        upstreamModel: 'sim-small-context',
        contextWindow: 8_192,
        maxOutputTokens: 1_024,
        nativeProtocols: native,
        protocols: ['messages', 'responses', 'chat', 'generate-content'],
        capabilities: ['text', 'streaming', 'tool_use'],
      };
    }

    it('an invalid request and an unknown model, on Chat and Responses', async () => {
      expect((await expectErrorEnvelope(post('/v1/chat/completions', { model: 'gpt-4.1' }), 400)).type).toBe('invalid_request_error');
      expect((await expectErrorEnvelope(post('/v1/responses', { input: 'no model' }), 400)).type).toBe('invalid_request_error');
      const malformed = fetch(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.key}` },
        body: '{not json',
      }).then(async (response) => ({ status: response.status, text: await response.text() }));
      await expectErrorEnvelope(malformed, 400);
      // An unknown model is the gateway's 400 (errors/gateway-error.ts `unsupported_model`), Responses naming it model_not_found.
      await expectErrorEnvelope(
        post('/v1/chat/completions', { model: 'no-such-model', messages: [{ role: 'user', content: 'Hello' }] }),
        400,
      );
      expect((await expectErrorEnvelope(post('/v1/responses', { model: 'no-such-model', input: 'Hello', stream: true }), 400)).code).toBe(
        'model_not_found',
      );
    });

    it('a context overflow, native and translated, whole and streamed', async () => {
      gateway.deps.catalog.replace([
        ...gateway.deps.catalog.models,
        tinyModel('tiny-gpt', 'openai', ['responses', 'chat']),
        tinyModel('tiny-claude', 'anthropic', ['messages']),
      ]);
      const key = await keyFor('tiny', '', [
        { protocol: 'chat', models: ['tiny-gpt'] },
        { protocol: 'responses', models: ['tiny-gpt'] },
        { protocol: 'messages', models: ['tiny-claude'] },
      ]);
      for (const model of ['tiny-gpt', 'tiny-claude']) {
        for (const stream of [false, true]) {
          const chat = await expectErrorEnvelope(
            post('/v1/chat/completions', { model, stream, messages: [{ role: 'user', content: LONG }] }, key),
            400,
          );
          expect(chat.code).toBe('context_length_exceeded');
          const whole = post('/v1/responses', { model, stream, store: false, input: LONG }, key);
          if (!stream) {
            expect((await expectErrorEnvelope(whole, 400)).code).toBe('context_length_exceeded');
            continue;
          }
          // Streamed, refused inside the stream as OpenAI does: every event validates.
          const { status, text } = await whole;
          expect(status).toBe(200);
          const events = ssePayloads(text) as Array<Record<string, any>>;
          for (const event of events) {
            expect({ model, type: event.type, problems: emittedProblems('ResponseStreamEvent', event) }).toEqual({
              model,
              type: event.type,
              problems: [],
            });
          }
          expect(events.find((event) => event.type === 'error')?.code).toBe('context_length_exceeded');
          expect(events.at(-1)).toMatchObject({ type: 'response.failed', response: { error: { code: 'context_length_exceeded' } } });
        }
      }
    });

    it("an upstream 429 as the upstream said it (native), mapped (translated), and the gateway's own envelope", async () => {
      const chat = await keyFor('said-429-chat', '/_fault/429', [{ protocol: 'chat', models: ['gpt-4.1'] }]);
      await expectErrorEnvelope(
        post('/v1/chat/completions', { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hello' }] }, chat),
        429,
      );
      const responses = await keyFor('said-429-responses', '/_fault/429', [{ protocol: 'responses', models: ['gpt-4.1'] }]);
      await expectErrorEnvelope(post('/v1/responses', { model: 'gpt-4.1', input: 'Hello', store: false, stream: true }, responses), 429);
      const translated = await keyFor('said-429-messages', '/_fault/429', [{ protocol: 'messages', models: ['claude-sonnet-4-5'] }]);
      expect(
        (
          await expectErrorEnvelope(
            post('/v1/chat/completions', { model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'Hello' }] }, translated),
            429,
          )
        ).type,
      ).toBe('rate_limit_error');
      await expectErrorEnvelope(
        post('/v1/responses', { model: 'claude-sonnet-4-5', input: 'Hello', store: false, stream: true }, translated),
        429,
      );
      const failing = await keyFor('said-500', '/_fault/500', [
        { protocol: 'chat', models: ['gpt-4.1'] },
        { protocol: 'responses', models: ['gpt-4.1'] },
      ]);
      expect(
        (
          await expectErrorEnvelope(
            post('/v1/chat/completions', { model: 'gpt-4.1', messages: [{ role: 'user', content: 'Hello' }] }, failing),
            502,
          )
        ).message,
      ).toMatch(/^no available account/);
      await expectErrorEnvelope(post('/v1/responses', { model: 'gpt-4.1', input: 'Hello', store: false }, failing), 502);
    });
  });

  describe('compaction answers', () => {
    const compact = (model: string, body: Record<string, unknown> = {}) =>
      post('/v1/responses/compact', {
        model,
        input: HISTORY,
        instructions: 'You are Codex.',
        tools: TOOLS_RESPONSES,
        parallel_tool_calls: false,
        ...body,
      });

    it.each(['gpt-5', 'claude-sonnet-4-5', 'gemini-2.5-flash'])(
      'POST /v1/responses/compact on %s, as Codex sends it, and the item brought back',
      async (model) => {
        const answer = await compact(model);
        expect(answer.status).toBe(200);
        const body = JSON.parse(answer.text);
        expect({ model, problems: emittedProblems('CompactResource', body) }).toEqual({ model, problems: [] });
        expect(body.output.map((item: { type: string }) => item.type)).toEqual(['compaction']);
        // The compaction item in a later input: a request the real API takes (and the gateway's translation of it).
        const next = { model, store: false, input: [...body.output, { role: 'user', content: 'Continue please' }] };
        expect({ model, problems: requestProblems('CreateResponse', next) }).toEqual({ model, problems: [] });
        await responses(next);
      },
    );

    it.each(['gpt-5', 'claude-sonnet-4-5'])('a compaction_trigger on %s, whole and streamed', async (model) => {
      const answer = await responses({ model, store: false, input: [...HISTORY, { type: 'compaction_trigger' }] });
      expect(answer.output.map((item: { type: string }) => item.type)).toEqual(['compaction']);
    });
  });

  describe('the Responses WebSocket', () => {
    const clients: WebSocketClient[] = [];
    afterAll(() => {
      for (const client of clients) client.ws.terminate();
    });

    function expectFramesValid(frames: Frame[]): void {
      for (const frame of frames)
        expect({ type: frame.type, problems: emittedProblems('ResponsesServerEvent', frame) }).toEqual({ type: frame.type, problems: [] });
    }

    it.each(['gpt-5', 'claude-sonnet-4-5', 'gemini-3-pro-preview'])(
      'every text frame on %s is a server event of the document',
      async (model) => {
        const from = gateway.sim.requests.length;
        const client = await WebSocketClient.open(`${gateway.url.replace('http', 'ws')}/v1/responses`, {
          authorization: `Bearer ${gateway.key}`,
          'openai-beta': 'responses_websockets=2026-02-06',
        });
        clients.push(client);
        const warm = await client.turn({ model, store: false, generate: false, input: 'Hello', tools: TOOLS_RESPONSES });
        const called = await client.turn({
          model,
          store: false,
          input: 'Use get_weather please',
          tools: TOOLS_RESPONSES,
          previous_response_id: warm.at(-1)!.response.id,
        });
        expect(called.at(-1)!.type).toBe('response.completed');
        const call = called.at(-1)!.response.output.find((item: { type: string }) => item.type === 'function_call');
        expect(call).toBeDefined();
        const answered = await client.turn({
          model,
          store: false,
          tools: TOOLS_RESPONSES,
          previous_response_id: called.at(-1)!.response.id,
          input: [{ type: 'function_call_output', call_id: call.call_id, output: 'sunny' }],
        });
        expect(answered.at(-1)!.type).toBe('response.completed');
        const compacted = await client.turn({ model, store: false, input: [...HISTORY, { type: 'compaction_trigger' }] });
        expect(compacted.at(-1)!.response.output.map((item: { type: string }) => item.type)).toEqual(['compaction']);
        client.ws.send('{not json');
        await client.until((frame) => frame.type === 'error');
        const refused = await client.turn({ store: false, input: 'no model' });
        expect(refused.at(-1)!.type).toBe('error');
        expectFramesValid(client.frames);
        // The upstream requests of these turns are validated after the test with the others.
        expect(gateway.sim.requests.length).toBeGreaterThan(from);
      },
    );
  });

  it('every request the gateway sent to an OpenAI-protocol upstream in this file was validated', () => {
    validateUpstreamRequests();
    for (const path of Object.keys(REQUEST_SCHEMAS))
      expect({ path, validated: (validated.get(path) ?? 0) > 0 }).toEqual({ path, validated: true });
  });
});
