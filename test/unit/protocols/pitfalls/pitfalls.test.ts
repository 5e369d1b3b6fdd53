/**
 * One test per pitfall of PROTOCOLS.md section 6 (bugs reported against other gateways), each
 * showing our codecs avoid it. Most send the translated request to the strict simulator, which
 * answers the real APIs' 400s (its wording included) when a rule is broken; the others check the
 * wire directly. Each test fails if the rule it names is broken.
 */
import { startSimulator, type Simulator } from '../../../../scripts/provider-sim/server';
import { PROTOCOLS, type Protocol } from '../../../../src/ir/protocol';
import type { IrRequest } from '../../../../src/ir/request';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { SKIP_THOUGHT_SIGNATURE } from '../../../../src/protocols/generate-content';
import { CODECS } from '../../../../src/relay/codec-registry';
import { callSimulator, decodeStream, encodeStream, simTarget } from '../../../support/codec-harness';
import { collectIrStream, deterministicContext, seededRandom } from '../../../support/sdk-responses';
import { checkClientStream, parseFrames } from '../conformance/client-stream-rules';
import { TIME, WEATHER } from '../matrix/matrix-scenarios';
import { asArray, dig, upstreamTurns } from '../matrix/wire';
import { ACCEPTED, accepted, conversation, sendRaw, upstreamBody } from './pitfall-support';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await sim.close();
});

const CHAT_TOOLS = [WEATHER, TIME].map((tool) => ({
  type: 'function',
  function: { name: tool.name, description: tool.description, parameters: tool.schema },
}));
const OTHERS = (protocol: Protocol): Protocol[] => PROTOCOLS.filter((candidate) => candidate !== protocol);

function irRequest(extra: Partial<IrRequest>): IrRequest {
  return { model: 'client-model', system: [], turns: [], tools: [], builtinTools: [], sampling: {}, stream: false, ...extra };
}

function chatToolRound(
  results: Array<[string, string]>,
  calls: Array<[string, string, string]> = [
    ['call_a', 'get_weather', '{"city":"Paris"}'],
    ['call_b', 'get_time', '{"zone":"CET"}'],
  ],
): Record<string, unknown> {
  return {
    model: 'client-model',
    tools: CHAT_TOOLS,
    messages: [
      { role: 'user', content: 'Please call get_weather and get_time for Paris' },
      {
        role: 'assistant',
        content: null,
        tool_calls: calls.map(([id, name, args]) => ({ id, type: 'function', function: { name, arguments: args } })),
      },
      ...results.map(([id, content]) => ({ role: 'tool', tool_call_id: id, content })),
    ],
  };
}

describe('PROTOCOLS.md section 6 pitfalls', () => {
  it('pitfall 1: Generate-Content "Function call is missing a thought_signature" — the thought signature is persisted per part and replayed', async () => {
    for (const inbound of PROTOCOLS) {
      const { client, traces } = conversation(sim, inbound, 'generate-content', false);
      client.user('Please call get_weather for Paris');
      await client.send({ tools: [WEATHER] });
      const issued = asArray(dig(JSON.parse(traces[0]!.simText!), 'candidates', 0, 'content', 'parts')).find(
        (part) => dig(part, 'functionCall') !== undefined,
      );
      const signature = dig(issued, 'thoughtSignature');
      expect(typeof signature).toBe('string');
      client.toolResults([{ text: 'sunny' }]);
      await client.send({ tools: [WEATHER] });
      // The model (`sim-g3…`, gemini-3 rules) rejects a call without its signature.
      expect(accepted(traces[1])).toEqual(ACCEPTED);
      const replayed = upstreamTurns('generate-content', upstreamBody(traces[1]))
        .flatMap((content) => asArray(dig(content, 'parts')))
        .find((part) => dig(part, 'functionCall') !== undefined);
      // The real signature, through every client protocol — not the documented bypass value.
      expect({ inbound, signature: dig(replayed, 'thoughtSignature') }).toEqual({ inbound, signature });
      expect(signature).not.toBe(SKIP_THOUGHT_SIGNATURE);
    }
  });

  it('pitfall 2: Messages "final assistant message must start with a thinking block" / "Invalid signature" — thinking round-trips exactly, same family only', async () => {
    for (const inbound of PROTOCOLS) {
      const { client, traces } = conversation(sim, inbound, 'messages', false);
      client.user('Please call get_weather for Paris');
      await client.send({ tools: [WEATHER], reasoning: true });
      const thinking = asArray(dig(JSON.parse(traces[0]!.simText!), 'content'))[0];
      expect(dig(thinking, 'type')).toBe('thinking');
      client.toolResults([{ text: 'sunny' }]);
      await client.send({ tools: [WEATHER], reasoning: true });
      expect(accepted(traces[1])).toEqual(ACCEPTED);
      const assistant = upstreamTurns('messages', upstreamBody(traces[1])).find((message) => dig(message, 'role') === 'assistant');
      const first = asArray(dig(assistant, 'content'))[0];
      expect({ inbound, type: dig(first, 'type') }).toEqual({ inbound, type: 'thinking' });
      // Byte for byte: the text the signature covers and the signature itself.
      expect({ inbound, block: first }).toEqual({ inbound, block: thinking });
    }
    // A signature of another family is never replayed to Messages: thinking is turned off instead.
    const foreign = irRequest({
      reasoning: { budgetTokens: 2048 },
      tools: [{ name: 'get_weather', parameters: WEATHER.schema }],
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'Please call get_weather for Paris' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'I will call it.', signature: { origin: 'generate-content', value: 'CgForeign' } },
            { type: 'tool_call', id: 'toolu_1', name: 'get_weather', argumentsJson: '{"city":"Paris"}' },
          ],
        },
        { role: 'user', parts: [{ type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] }] },
      ],
    });
    const encoded = CODECS.messages.upstream.encodeRequest(foreign, simTarget('messages'), deterministicContext());
    expect(JSON.stringify(encoded.body)).not.toContain('CgForeign');
    expect((await callSimulator(sim, 'messages', encoded)).status).toBe(200);
  });

  it('pitfall 3: "tool_use ids were found without tool_result blocks immediately after" — tool results come first in the next user turn', async () => {
    const body = chatToolRound([
      ['call_a', 'sunny'],
      ['call_b', 'noon'],
    ]);
    (body.messages as unknown[]).push({ role: 'user', content: 'And tomorrow?' });
    const { trace } = await sendRaw(sim, 'chat', 'messages', body);
    expect(accepted(trace)).toEqual(ACCEPTED);
    const [, assistant, next] = upstreamTurns('messages', upstreamBody(trace));
    const callIds = asArray(dig(assistant, 'content'))
      .filter((block) => dig(block, 'type') === 'tool_use')
      .map((block) => dig(block, 'id'));
    const blocks = asArray(dig(next, 'content'));
    expect(blocks.map((block) => dig(block, 'type'))).toEqual(['tool_result', 'tool_result', 'text']);
    expect(blocks.slice(0, 2).map((block) => dig(block, 'tool_use_id'))).toEqual(callIds);
  });

  it("pitfall 4: Chat \"role 'tool' must be a response to a preceding message with 'tool_calls'\" — tool messages directly after the assistant tool calls", async () => {
    const body = {
      model: 'client-model',
      max_tokens: 256,
      tools: [WEATHER, TIME].map((tool) => ({ name: tool.name, description: tool.description, input_schema: tool.schema })),
      messages: [
        { role: 'user', content: 'Please call get_weather and get_time for Paris' },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Calling both.' },
            { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_b', name: 'get_time', input: { zone: 'CET' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_a', content: 'sunny' },
            { type: 'tool_result', tool_use_id: 'toolu_b', content: 'noon' },
            { type: 'text', text: 'Thanks. And tomorrow?' },
          ],
        },
      ],
    };
    const { trace } = await sendRaw(sim, 'messages', 'chat', body);
    expect(accepted(trace)).toEqual(ACCEPTED);
    const roles = upstreamTurns('chat', upstreamBody(trace)).map((message) => dig(message, 'role'));
    expect(roles).toEqual(['user', 'assistant', 'tool', 'tool', 'user']);
  });

  it('pitfall 5: Generate-Content "number of function response parts must equal the number of function call parts" — one user content with all responses of a model turn', async () => {
    const body = chatToolRound([
      ['call_a', 'sunny'],
      ['call_b', 'noon'],
    ]);
    // A Chat client sends a tool's image as a user message after the tool messages.
    (body.messages as unknown[]).push({ role: 'user', content: [{ type: 'text', text: 'Also this.' }] });
    const { trace } = await sendRaw(sim, 'chat', 'generate-content', body);
    expect(accepted(trace)).toEqual(ACCEPTED);
    const contents = upstreamTurns('generate-content', upstreamBody(trace));
    const modelIndex = contents.findIndex((content) => dig(content, 'role') === 'model');
    const calls = asArray(dig(contents[modelIndex], 'parts')).filter((part) => dig(part, 'functionCall') !== undefined);
    const responses = asArray(dig(contents[modelIndex + 1], 'parts')).filter((part) => dig(part, 'functionResponse') !== undefined);
    expect(calls).toHaveLength(2);
    expect(responses).toHaveLength(2);
    expect(contents).toHaveLength(modelIndex + 2);
  });

  it('pitfall 6: parallel or same-name calls paired by position — results are paired by id', async () => {
    // Two calls of the same tool, answered in the reverse order.
    const body = chatToolRound(
      [
        ['call_rome', 'rainy in Rome'],
        ['call_paris', 'sunny in Paris'],
      ],
      [
        ['call_paris', 'get_weather', '{"city":"Paris"}'],
        ['call_rome', 'get_weather', '{"city":"Rome"}'],
      ],
    );
    const toGc = await sendRaw(sim, 'chat', 'generate-content', body);
    expect(accepted(toGc.trace)).toEqual(ACCEPTED);
    const contents = upstreamTurns('generate-content', upstreamBody(toGc.trace));
    const calls = asArray(dig(contents[1], 'parts')).map((part) => dig(part, 'functionCall'));
    const responses = asArray(dig(contents[2], 'parts')).map((part) => dig(part, 'functionResponse'));
    expect(responses.map((response) => dig(response, 'id'))).toEqual(calls.map((call) => dig(call, 'id')));
    expect(JSON.stringify(responses[0])).toContain('sunny in Paris');
    const toMessages = await sendRaw(sim, 'chat', 'messages', body);
    expect(accepted(toMessages.trace)).toEqual(ACCEPTED);
    const [, assistant, results] = upstreamTurns('messages', upstreamBody(toMessages.trace));
    const parisId = asArray(dig(assistant, 'content')).find((block) => JSON.stringify(block).includes('Paris'));
    const parisResult = asArray(dig(results, 'content')).find((block) => dig(block, 'tool_use_id') === dig(parisId, 'id'));
    expect(JSON.stringify(parisResult)).toContain('sunny in Paris');
  });

  it('pitfall 7: Generate-Content schema rejections (additionalProperties, const, type arrays, $schema) — schemas are sanitized', async () => {
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      additionalProperties: false,
      properties: { unit: { const: 'C' }, city: { type: ['string', 'null'] }, day: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
      required: ['unit', 'city', 'day'],
    };
    const body = {
      model: 'client-model',
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: schema } }],
      response_format: { type: 'json_schema', json_schema: { name: 'weather', schema } },
      messages: [{ role: 'user', content: 'Weather as json please' }],
    };
    const { trace, text } = await sendRaw(sim, 'chat', 'generate-content', body);
    expect(accepted(trace)).toEqual(ACCEPTED);
    const wire = JSON.stringify(upstreamBody(trace));
    for (const banned of ['$schema', 'additionalProperties', '"const"', '["string","null"]']) expect(wire).not.toContain(banned);
    expect(JSON.parse(String(dig(JSON.parse(text), 'choices', 0, 'message', 'content')))).toMatchObject({ unit: 'C' });
  });

  it('pitfall 8: function-name rules differ — names are sanitized with a reverse map', async () => {
    // Dots and colons are fine in Generate-Content, not in Chat.
    const body = {
      contents: [{ role: 'user', parts: [{ text: 'Look it up' }] }],
      tools: [{ functionDeclarations: [{ name: 'weather.lookup:v2', description: 'Weather', parameters: WEATHER.schema }] }],
      toolConfig: { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['weather.lookup:v2'] } },
    };
    const { trace, text } = await sendRaw(sim, 'generate-content', 'chat', body);
    expect(accepted(trace)).toEqual(ACCEPTED);
    const sent = String(dig(upstreamBody(trace), 'tools', 0, 'function', 'name'));
    expect(sent).toMatch(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/);
    expect(trace.encoded?.toolNames[sent]).toBe('weather.lookup:v2');
    // The client sees its own name again.
    expect(dig(JSON.parse(text), 'candidates', 0, 'content', 'parts', 0, 'functionCall', 'name')).toBe('weather.lookup:v2');
  });

  it('pitfall 9: Messages tool_use.id pattern — ids are sanitized identically on both sides', async () => {
    const body = chatToolRound(
      [
        ['call:a/1', 'sunny'],
        ['call:b/2', 'noon'],
      ],
      [
        ['call:a/1', 'get_weather', '{"city":"Paris"}'],
        ['call:b/2', 'get_time', '{"zone":"CET"}'],
      ],
    );
    const { trace } = await sendRaw(sim, 'chat', 'messages', body);
    expect(accepted(trace)).toEqual(ACCEPTED);
    const [, assistant, results] = upstreamTurns('messages', upstreamBody(trace));
    const ids = asArray(dig(assistant, 'content')).map((block) => String(dig(block, 'id')));
    expect(ids.every((id) => /^[a-zA-Z0-9_-]+$/.test(id))).toBe(true);
    expect(asArray(dig(results, 'content')).map((block) => dig(block, 'tool_use_id'))).toEqual(ids);
  });

  it('pitfall 10: empty text blocks rejected by Messages — they are dropped', async () => {
    const body = {
      model: 'client-model',
      max_output_tokens: 256,
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: '' },
            { type: 'input_text', text: 'Hello' },
            { type: 'input_text', text: '  ' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'output_text', text: '' },
            { type: 'output_text', text: 'Hi.' },
          ],
        },
        { role: 'user', content: 'Again' },
      ],
    };
    const { trace } = await sendRaw(sim, 'responses', 'messages', body);
    expect(accepted(trace)).toEqual(ACCEPTED);
    const texts = upstreamTurns('messages', upstreamBody(trace))
      .flatMap((message) => asArray(dig(message, 'content')))
      .filter((block) => dig(block, 'type') === 'text')
      .map((block) => String(dig(block, 'text')));
    expect(texts.every((text) => text.trim() !== '')).toBe(true);
  });

  it('pitfall 11: zero usage after stream conversion — usage is requested upstream and the final events wait for it', async () => {
    // A Chat upstream sends usage only when asked, after the finish chunk.
    const encoded = CODECS.chat.upstream.encodeRequest(
      irRequest({
        turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hello' }] }],
        stream: true,
        includeUsage: false,
      }),
      simTarget('chat'),
      deterministicContext(),
    );
    expect(dig(encoded.body, 'stream_options', 'include_usage')).toBe(true);
    for (const inbound of OTHERS('chat')) {
      const { client, traces } = conversation(sim, inbound, 'chat', true);
      client.user('Hello there');
      const view = await client.send();
      expect(accepted(traces[0])).toEqual(ACCEPTED);
      expect({ inbound, output: view.usage.output, input: view.usage.input }).toEqual({ inbound, output: 5, input: 3 });
    }
  });

  it('pitfall 12: finish_reason "stop" on every chunk derived from Generate-Content — finish only on the last chunk', async () => {
    const { client, traces } = conversation(sim, 'chat', 'generate-content', true);
    client.user('one two three four five six seven eight nine ten');
    await client.send();
    const events = traces[0]!.irEvents ?? [];
    expect(events.filter((event) => event.type === 'finish')).toHaveLength(1);
    const frames = checkClientStream('chat', traces[0]!.clientFrames ?? [], { includeUsage: true });
    const finishes = frames.filter((frame) => typeof dig(frame.data, 'choices', 0, 'finish_reason') === 'string');
    expect(finishes).toHaveLength(1);
    expect(frames.filter((frame) => typeof dig(frame.data, 'choices', 0, 'delta', 'content') === 'string').length).toBeGreaterThan(2);
  });

  it('pitfall 13: Generate-Content tool calls reported as `stop` — a seen functionCall makes the finish tool_calls', async () => {
    for (const stream of [false, true]) {
      const { client, traces } = conversation(sim, 'chat', 'generate-content', stream);
      client.user('Please call get_weather for Paris');
      const view = await client.send({ tools: [WEATHER] });
      // The simulator ends such a stream with a text chunk carrying `finishReason: STOP`.
      expect(JSON.stringify(traces[0]!.simText)).toContain('STOP');
      expect({ stream, finish: view.finish }).toEqual({ stream, finish: 'tool_calls' });
    }
  });

  it('pitfall 14: Responses store:false "Item with id \'rs_…\' not found" — reasoning is replayed as encrypted content without ids', async () => {
    for (const inbound of PROTOCOLS) {
      const { client, traces } = conversation(sim, inbound, 'responses', false);
      client.user('Please call get_weather for Paris');
      await client.send({ tools: [WEATHER], reasoning: true });
      client.toolResults([{ text: 'sunny' }]);
      await client.send({ tools: [WEATHER], reasoning: true });
      expect(accepted(traces[1])).toEqual(ACCEPTED);
      // Encrypted content must have been asked for, so the item can be replayed without storage.
      expect(asArray(dig(upstreamBody(traces[0]), 'include'))).toContain('reasoning.encrypted_content');
      const body = upstreamBody(traces[1]);
      const reasoning = upstreamTurns('responses', body).filter((item) => dig(item, 'type') === 'reasoning');
      expect(reasoning).toHaveLength(1);
      expect({ inbound, id: dig(reasoning[0], 'id'), encrypted: typeof dig(reasoning[0], 'encrypted_content') }).toEqual({
        inbound,
        id: undefined,
        encrypted: 'string',
      });
    }
  });

  it('pitfall 15: Generate-Content cached tokens double-counted — promptTokenCount already includes them', () => {
    const body = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: {
        promptTokenCount: 1300,
        cachedContentTokenCount: 1024,
        candidatesTokenCount: 2,
        thoughtsTokenCount: 3,
        totalTokenCount: 1305,
      },
      modelVersion: 'gemini',
      responseId: 'r1',
    };
    const ir = CODECS['generate-content'].upstream.decodeResponse(body, { ...deterministicContext(), toolNames: {} });
    expect(ir.usage).toEqual({ inputTokens: 276, cacheReadTokens: 1024, cacheWriteTokens: 0, outputTokens: 5, reasoningTokens: 3 });
    const chat = CODECS.chat.inbound.encodeResponse(ir, { model: 'client-model' }, deterministicContext());
    expect(dig(chat, 'usage')).toMatchObject({ prompt_tokens: 1300, prompt_tokens_details: { cached_tokens: 1024 }, completion_tokens: 5 });
    const messages = CODECS.messages.inbound.encodeResponse(ir, { model: 'client-model' }, deterministicContext());
    expect(dig(messages, 'usage')).toMatchObject({ input_tokens: 276, cache_read_input_tokens: 1024, output_tokens: 5 });
  });

  it('pitfall 16: tool arguments lost when sent only on `.done` — they are emitted as a delta', () => {
    const item = { id: 'fc_1', type: 'function_call', status: 'in_progress', call_id: 'call_1', name: 'get_weather', arguments: '' };
    const events: Array<Record<string, unknown>> = [
      { type: 'response.created', response: { id: 'resp_1', object: 'response', status: 'in_progress', model: 'gpt', output: [] } },
      { type: 'response.output_item.added', output_index: 0, item },
      { type: 'response.function_call_arguments.done', output_index: 0, item_id: 'fc_1', arguments: '{"city":"Paris"}' },
      { type: 'response.output_item.done', output_index: 0, item: { ...item, status: 'completed', arguments: '{"city":"Paris"}' } },
      {
        type: 'response.completed',
        response: {
          id: 'resp_1',
          object: 'response',
          status: 'completed',
          model: 'gpt',
          output: [{ ...item, status: 'completed', arguments: '{"city":"Paris"}' }],
          usage: {
            input_tokens: 5,
            output_tokens: 4,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens_details: { reasoning_tokens: 0 },
          },
        },
      },
    ];
    const sse = events
      .map((event, index) => `event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: index })}\n\n`)
      .join('');
    const decoded = decodeStream('responses', sse, { ...deterministicContext(), toolNames: {} }, seededRandom(2));
    const folded = collectIrStream(decoded);
    expect(folded.parts).toEqual([{ type: 'tool_call', id: 'call_1', name: 'get_weather', argumentsJson: '{"city":"Paris"}' }]);
    for (const client of PROTOCOLS) {
      const frames = encodeStream(
        client,
        decoded,
        { model: 'client-model', includeUsage: true, sse: true, responseId: 'resp_2' },
        deterministicContext(),
      );
      expect({ client, wire: frames.join('').includes('Paris') }).toEqual({ client, wire: true });
    }
  });

  it("pitfall 17: mid-stream errors swallowed as a clean 200 — they become the client's error frame", async () => {
    for (const inbound of PROTOCOLS) {
      const upstream = OTHERS(inbound)[0]!;
      const { client, traces } = conversation(sim, inbound, upstream, true, { upstreamHeaders: { 'x-sim-fault': 'error-event' } });
      client.user('one two three four five six seven eight nine ten eleven twelve');
      await expect(client.send()).rejects.toThrow();
      const frames = parseFrames(traces[0]!.clientFrames ?? []);
      const clean = frames.some(
        (frame) =>
          frame.data === '[DONE]' ||
          frame.event === 'message_stop' ||
          frame.event === 'response.completed' ||
          typeof dig(frame.data, 'candidates', 0, 'finishReason') === 'string',
      );
      expect({ inbound, clean }).toEqual({ inbound, clean: false });
    }
  });

  it('pitfall 18: thinking with a forced tool → 400 — the choice becomes auto or thinking is turned off', async () => {
    const body = {
      model: 'client-model',
      reasoning_effort: 'high',
      tools: CHAT_TOOLS,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      messages: [{ role: 'user', content: 'What is the weather?' }],
    };
    const { trace } = await sendRaw(sim, 'chat', 'messages', body);
    // The simulator answers "Thinking may not be enabled when tool_choice forces tool use." otherwise.
    expect(accepted(trace)).toEqual(ACCEPTED);
    const wire = upstreamBody(trace);
    const forced = dig(wire, 'tool_choice', 'type') === 'tool' || dig(wire, 'tool_choice', 'type') === 'any';
    expect(forced && dig(wire, 'thinking', 'type') === 'enabled').toBe(false);
    expect(trace.encoded?.warnings.length).toBeGreaterThan(0);
  });

  it('pitfall 19: budget_tokens ≥ max_tokens — max_tokens is raised', async () => {
    const body = {
      contents: [{ role: 'user', parts: [{ text: 'Think hard' }] }],
      generationConfig: { maxOutputTokens: 1024, thinkingConfig: { thinkingBudget: 4096, includeThoughts: true } },
    };
    const { trace } = await sendRaw(sim, 'generate-content', 'messages', body);
    expect(accepted(trace)).toEqual(ACCEPTED);
    const wire = upstreamBody(trace);
    expect(Number(wire.max_tokens)).toBeGreaterThan(Number(dig(wire, 'thinking', 'budget_tokens')));
    expect(dig(wire, 'thinking', 'budget_tokens')).toBe(4096);
  });

  it('pitfall 20: Chat choices[].index taken from content-block indexes — it stays 0', async () => {
    const { client, traces } = conversation(sim, 'chat', 'messages', true);
    client.user('Please call get_weather and get_time for Paris');
    await client.send({ tools: [WEATHER, TIME], reasoning: true });
    const frames = parseFrames(traces[0]!.clientFrames ?? []);
    const indexes = new Set(frames.flatMap((frame) => asArray(dig(frame.data, 'choices')).map((choice) => dig(choice, 'index'))));
    expect([...indexes]).toEqual([0]);
    // The upstream stream had blocks 0..2 (thinking, two tool calls): they are not choices.
    expect(String(traces[0]!.simText).match(/"index":2/)).not.toBeNull();
  });

  it('pitfall 21: Chat-compatible thinking upstreams need reasoning_content replayed on tool-call turns', async () => {
    for (const inbound of PROTOCOLS) {
      const { client, traces } = conversation(sim, inbound, 'chat', false);
      client.user('Please call get_weather for Paris');
      await client.send({ tools: [WEATHER], reasoning: true });
      const reasoning = dig(JSON.parse(traces[0]!.simText!), 'choices', 0, 'message', 'reasoning_content');
      expect(typeof reasoning).toBe('string');
      client.toolResults([{ text: 'sunny' }]);
      await client.send({ tools: [WEATHER], reasoning: true });
      expect(accepted(traces[1])).toEqual(ACCEPTED);
      const assistant = upstreamTurns('chat', upstreamBody(traces[1])).find((message) => dig(message, 'role') === 'assistant');
      expect({ inbound, replayed: dig(assistant, 'reasoning_content') }).toEqual({ inbound, replayed: reasoning });
    }
  });

  it('pitfall 22: Responses clients report "stream closed before response.completed" — a terminal event always', async () => {
    for (const upstream of PROTOCOLS) {
      const cases: Array<{ headers?: Record<string, string>; terminal: string; maxTokens?: number }> = [
        { terminal: 'response.completed' },
        { terminal: 'response.incomplete', maxTokens: 16 },
        { headers: { 'x-sim-fault': 'cut' }, terminal: 'response.failed' },
      ];
      for (const { headers, terminal, maxTokens } of cases) {
        const { client, traces } = conversation(sim, 'responses', upstream, true, headers ? { upstreamHeaders: headers } : {});
        client.user('one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen');
        await client.send(maxTokens ? { maxTokens } : {}).catch(() => undefined);
        const frames = parseFrames(traces[0]!.clientFrames ?? []);
        expect({ upstream, last: frames[frames.length - 1]?.event }).toEqual({ upstream, last: terminal });
      }
    }
  });

  it('pitfall 23: empty tool names — a placeholder is substituted', async () => {
    const body = {
      model: 'client-model',
      max_output_tokens: 256,
      tools: [{ type: 'function', name: 'get_weather', parameters: WEATHER.schema }],
      input: [
        { role: 'user', content: 'Weather?' },
        { type: 'function_call', call_id: 'call_1', name: '', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'unknown tool' },
      ],
    };
    for (const upstream of ['messages', 'generate-content'] as const) {
      const { trace } = await sendRaw(sim, 'responses', upstream, body);
      // Both APIs reject an empty name ("Field required" / "Name is empty").
      expect({ upstream, ...accepted(trace) }).toEqual({ upstream, ...ACCEPTED });
      const wire = JSON.stringify(upstreamBody(trace));
      expect(wire).not.toContain('"name":""');
    }
  });

  it('pitfall 24: tool-call index wrong when text or thinking comes first in a Messages → Chat stream (new-api#5018)', async () => {
    const { client, traces } = conversation(sim, 'chat', 'messages', true);
    client.user('Please call get_weather and get_time for Paris');
    const view = await client.send({ tools: [WEATHER, TIME], reasoning: true });
    const frames = checkClientStream('chat', traces[0]!.clientFrames ?? [], { includeUsage: true });
    const firstDeltas = frames
      .flatMap((frame) => asArray(dig(frame.data, 'choices', 0, 'delta', 'tool_calls')))
      .filter((call) => dig(call, 'id') !== undefined)
      .map((call) => dig(call, 'index'));
    expect(firstDeltas).toEqual([0, 1]);
    expect(view.toolCalls.map((call) => [call.name, call.args])).toEqual([
      ['get_weather', { city: 'example' }],
      ['get_time', { zone: 'example' }],
    ]);
  });

  it('pitfall 25: non-contiguous Messages block indexes crash the official SDK (new-api#5483) — the encoder numbers its own blocks', async () => {
    // A block Messages cannot show (another protocol's server tool) sits between two it can.
    const events: IrStreamEvent[] = [
      { type: 'start', id: 'r1', model: 'up' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Searching. ' },
      { type: 'block_end', index: 0 },
      {
        type: 'block_start',
        index: 1,
        block: {
          kind: 'native',
          part: { type: 'native', protocol: 'responses', value: { type: 'web_search_call', id: 'ws_1', status: 'completed' } },
        },
      },
      { type: 'block_end', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'call_1', name: 'get_weather' } },
      { type: 'tool_args_delta', index: 2, json: '{"city":"Paris"}' },
      { type: 'block_end', index: 2 },
      { type: 'finish', finish: { unified: 'tool_calls', raw: 'completed' } },
      { type: 'usage', usage: { inputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 4, reasoningTokens: 0 } },
    ];
    const frames = encodeStream('messages', events, { model: 'client-model' }, deterministicContext());
    checkClientStream('messages', frames);
    // And a whole translated stream through the SDK's accumulator.
    const { client, traces } = conversation(sim, 'messages', 'generate-content', true);
    client.user('Please call get_weather and get_time for Paris');
    const view = await client.send({ tools: [WEATHER, TIME], reasoning: true });
    checkClientStream('messages', traces[0]!.clientFrames ?? []);
    expect(view.toolCalls.map((call) => call.name)).toEqual(['get_weather', 'get_time']);
  });

  it('pitfall 26: failover after the first byte corrupts the stream (two message_start) — a stream starts once', () => {
    const start: IrStreamEvent = { type: 'start', id: 'r1', model: 'up', usage: { inputTokens: 3 } };
    const text: IrStreamEvent[] = [
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Hi' },
      { type: 'block_end', index: 0 },
    ];
    const ending: IrStreamEvent[] = [
      { type: 'finish', finish: { unified: 'stop', raw: 'stop' } },
      { type: 'usage', usage: { inputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 1, reasoningTokens: 0 } },
    ];
    for (const client of PROTOCOLS) {
      // A second upstream's start arriving on a stream already begun is not a second beginning.
      const frames = encodeStream(
        client,
        [start, ...text, start, ...ending],
        { model: 'client-model', includeUsage: true, sse: true, responseId: 'resp_1' },
        deterministicContext(),
      );
      const parsed = parseFrames(frames);
      const starts = parsed.filter(
        (frame) =>
          frame.event === 'message_start' ||
          frame.event === 'response.created' ||
          dig(frame.data, 'choices', 0, 'delta', 'role') === 'assistant',
      ).length;
      // Generate-Content has no start event: one answer is one responseId throughout.
      const answers = new Set(parsed.map((frame) => dig(frame.data, 'responseId'))).size;
      expect({ client, starts: client === 'generate-content' ? answers : starts }).toEqual({ client, starts: 1 });
      checkClientStream(client, frames, { includeUsage: true });
    }
  });
});
