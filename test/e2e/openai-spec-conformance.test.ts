/**
 * Issue 25 item 8: nothing a real OpenAI upstream would refuse. Every Chat and Responses body the
 * gateway emits here (whole and streamed, from each upstream family, with tool calls and reasoning)
 * and every request it sends to an OpenAI-protocol upstream (the simulator's request log) is
 * validated against OpenAI's OpenAPI document (test/support/openai-spec.ts; its known
 * under-declarations are listed there with the reason).
 */
import { ssePayloads } from '../support/capture-shape';
import { emittedProblems, requestProblems } from '../support/openai-spec';
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(120_000);

const TOOLS_CHAT = [{ type: 'function', function: { name: 'get_weather', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const TOOLS_RESPONSES = [{ type: 'function', name: 'get_weather', description: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }, strict: false }];

describe('OpenAI\'s OpenAPI document accepts what the gateway emits and sends', () => {
  let gateway: TestGateway;
  beforeAll(async () => { gateway = await startTestGateway(); });
  afterAll(async () => { await gateway?.close(); });

  async function post(path: string, body: Record<string, unknown>): Promise<{ status: number; text: string }> {
    const response = await fetch(gateway.url + path, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.key}` }, body: JSON.stringify(body) });
    return { status: response.status, text: await response.text() };
  }

  /** Chat answers (whole and streamed) validate; returns the whole answer. */
  async function chat(body: Record<string, unknown>): Promise<Record<string, any>> {
    const whole = await post('/v1/chat/completions', body);
    expect(whole.status).toBe(200);
    const answer = JSON.parse(whole.text);
    expect({ model: body.model, problems: emittedProblems('CreateChatCompletionResponse', answer) }).toEqual({ model: body.model, problems: [] });
    const streamed = await post('/v1/chat/completions', { ...body, stream: true, stream_options: { include_usage: true } });
    expect(streamed.status).toBe(200);
    const chunks = ssePayloads(streamed.text) as Array<Record<string, any>>;
    for (const chunk of chunks) expect({ model: body.model, problems: emittedProblems('CreateChatCompletionStreamResponse', chunk) }).toEqual({ model: body.model, problems: [] });
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
    expect({ model: body.model, problems: emittedProblems("Response", answer) }).toEqual({ model: body.model, problems: [] });
    const streamed = await post('/v1/responses', { ...body, stream: true });
    expect(streamed.status).toBe(200);
    for (const event of ssePayloads(streamed.text) as Array<Record<string, any>>) {
      expect({ model: body.model, type: event.type, problems: emittedProblems('ResponseStreamEvent', event) }).toEqual({ model: body.model, type: event.type, problems: [] });
    }
    return answer;
  }

  const MODELS = ['claude-sonnet-4-5', 'gpt-4.1', 'gemini-2.5-flash', 'gemini-3-pro-preview', 'deepseek-v3.2'];

  it.each(MODELS)('Chat answers from %s: text, tool calls, reasoning', async (model) => {
    await chat({ model, messages: [{ role: 'user', content: 'Hello' }] });
    const called = await chat({ model, messages: [{ role: 'user', content: 'Use get_weather please' }], tools: TOOLS_CHAT });
    const call = called.choices[0].message.tool_calls?.[0];
    expect(call).toBeDefined();
    expect(call.id.length).toBeLessThanOrEqual(64);
    // The conversation replayed as the gateway answered it, with the tool's result.
    await chat({ model, tools: TOOLS_CHAT, messages: [
      { role: 'user', content: 'Use get_weather please' }, called.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'sunny' },
    ] });
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
    const replay = { model, tools: TOOLS_RESPONSES, store: false, input: [
      { role: 'user', content: 'Use get_weather please' }, ...called.output, { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
    ] };
    expect({ model, problems: requestProblems('CreateResponse', replay) }).toEqual({ model, problems: [] });
    await responses(replay);
  });

  it('every request sent to an OpenAI-protocol upstream is one the real API accepts, a replayed reasoning turn included', async () => {
    gateway.sim.clearRequests();
    // Chat pass-through of an assistant turn as the gateway answered it (reasoning_content and the gateway's reasoning_signature).
    const thinking = await post('/v1/chat/completions', { model: 'claude-sonnet-4-5', reasoning_effort: 'low', messages: [{ role: 'user', content: 'Hello' }] });
    const assistant = JSON.parse(thinking.text).choices[0].message;
    expect(assistant.reasoning_signature).toEqual(expect.any(String));
    for (const model of ['gpt-4.1', 'gpt-5']) {
      expect((await post('/v1/chat/completions', { model, messages: [{ role: 'user', content: 'Hello' }, assistant, { role: 'user', content: 'again' }] })).status).toBe(200);
    }
    // Translated callers onto OpenAI upstreams.
    const messages = await fetch(`${gateway.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'gpt-4.1', max_tokens: 64, tools: [{ name: 'get_weather', input_schema: TOOLS_CHAT[0].function.parameters }], messages: [{ role: 'user', content: 'Use get_weather please' }] }) });
    expect(messages.status).toBe(200);
    await responses({ model: 'gpt-5', input: 'Use get_weather please', tools: TOOLS_RESPONSES, store: true });

    const sent = gateway.sim.requests.filter((entry) => entry.protocol === 'chat' || entry.protocol === 'responses');
    expect(sent.length).toBeGreaterThanOrEqual(5);
    for (const entry of sent) {
      const schema = entry.protocol === 'chat' ? 'CreateChatCompletionRequest' : 'CreateResponse';
      expect({ path: entry.path, problems: requestProblems(schema, entry.body) }).toEqual({ path: entry.path, problems: [] });
    }
  });
});
