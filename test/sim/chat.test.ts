/** Chat Completions through the official SDK, streamed and not: every feature the gateway exercises. */
import type OpenAI from 'openai';
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { countTextTokens } from '../../scripts/provider-sim/tokens';
import { lastRequest, OPENAI_HEADERS, openai, parseSse, PNG_BASE64, post } from './sim-support';

let sim: Simulator;
let client: OpenAI;
beforeAll(async () => {
  sim = await startSimulator();
  client = openai(sim);
});
afterAll(async () => sim.close());

const MODEL = 'gpt-4.1';
const weather: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer', minimum: 2 } },
      required: ['city', 'days'],
      additionalProperties: false,
    },
    strict: true,
  },
};
const time: OpenAI.ChatCompletionTool = {
  type: 'function',
  function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string' } }, required: ['zone'] } },
};

describe('text', () => {
  it('echoes the last user text with usage', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello there' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    expect(completion.choices[0]!.message.content).toBe('Echo: Hello there');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({
      prompt_tokens: countTextTokens('Be brief.') + countTextTokens('Hello there'),
      completion_tokens: countTextTokens('Echo: Hello there'),
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('streams through chat.completions.stream() to the same answer', async () => {
    const stream = client.chat.completions.stream({
      model: MODEL,
      messages: [{ role: 'user', content: 'one two three four five' }],
      stream_options: { include_usage: true },
    });
    const completion = await stream.finalChatCompletion();
    expect(completion.choices[0]!.message.content).toBe('Echo: one two three four five');
    expect(completion.choices[0]!.finish_reason).toBe('stop');
    expect(completion.usage?.completion_tokens).toBe(countTextTokens('Echo: one two three four five'));
  });

  it('streams native chunks: usage null on each and a final usage chunk only with include_usage', async () => {
    const withUsage = await post(
      sim,
      '/v1/chat/completions',
      { model: MODEL, stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'a b c d' }] },
      OPENAI_HEADERS,
    );
    const frames = parseSse(withUsage.text);
    expect(frames[frames.length - 1]!.data).toBe('[DONE]');
    const chunks = frames.slice(0, -1).map((frame) => JSON.parse(frame.data));
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({
        object: 'chat.completion.chunk',
        model: MODEL,
        system_fingerprint: expect.any(String),
        created: expect.any(Number),
      });
      expect(chunk.id).toBe(chunks[0].id);
    }
    expect(chunks[0].choices[0]).toEqual({
      index: 0,
      delta: { role: 'assistant', content: '', refusal: null },
      logprobs: null,
      finish_reason: null,
    });
    expect(chunks.slice(0, -1).every((chunk) => chunk.usage === null)).toBe(true);
    expect(chunks[chunks.length - 2].choices[0]).toEqual({ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' });
    expect(chunks[chunks.length - 1].choices).toEqual([]);
    expect(chunks[chunks.length - 1].usage.total_tokens).toBeGreaterThan(0);

    const without = await post(
      sim,
      '/v1/chat/completions',
      { model: MODEL, stream: true, messages: [{ role: 'user', content: 'a b c d' }] },
      OPENAI_HEADERS,
    );
    const plain = parseSse(without.text)
      .slice(0, -1)
      .map((frame) => JSON.parse(frame.data));
    expect(plain.some((chunk) => 'usage' in chunk)).toBe(false);
  });

  it('truncates to max_tokens with finish_reason length, and cuts at a stop string', async () => {
    const long = await client.chat.completions.create({
      model: MODEL,
      max_tokens: 3,
      messages: [{ role: 'user', content: 'a long sentence that will not fit' }],
    });
    expect(long.choices[0]!.finish_reason).toBe('length');
    expect(long.choices[0]!.message.content).toBe('Echo: a long');
    const stopped = await client.chat.completions.create({
      model: MODEL,
      stop: 'END',
      messages: [{ role: 'user', content: 'before END after' }],
    });
    expect(stopped.choices[0]!.finish_reason).toBe('stop');
    expect(stopped.choices[0]!.message.content).toBe('Echo: before ');
  });

  it('returns n choices', async () => {
    const completion = await client.chat.completions.create({ model: MODEL, n: 2, messages: [{ role: 'user', content: 'twice' }] });
    expect(completion.choices.map((choice) => choice.index)).toEqual([0, 1]);
    expect(completion.usage?.completion_tokens).toBe(2 * countTextTokens('Echo: twice'));
  });
});

describe('tools', () => {
  it('calls the named tool with schema-valid arguments', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      tools: [weather, time],
      messages: [{ role: 'user', content: 'call get_weather' }],
    });
    const choice = completion.choices[0]!;
    expect(choice.finish_reason).toBe('tool_calls');
    expect(choice.message.content).toBeNull();
    const call = choice.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall;
    expect(call.id).toMatch(/^call_/);
    expect(call.function.name).toBe('get_weather');
    expect(JSON.parse(call.function.arguments)).toEqual({ city: 'example', days: 2 });
  });

  it('streams parallel calls that the SDK accumulates', async () => {
    const stream = client.chat.completions.stream({
      model: MODEL,
      tools: [weather, time],
      messages: [{ role: 'user', content: 'get_weather and get_time' }],
    });
    const completion = await stream.finalChatCompletion();
    const calls = completion.choices[0]!.message.tool_calls as OpenAI.ChatCompletionMessageFunctionToolCall[];
    expect(calls.map((call) => call.function.name)).toEqual(['get_weather', 'get_time']);
    expect(JSON.parse(calls[1]!.function.arguments)).toEqual({ zone: 'example' });
    expect(completion.choices[0]!.finish_reason).toBe('tool_calls');
  });

  it('honours required, a named function and parallel_tool_calls false', async () => {
    const required = await client.chat.completions.create({
      model: MODEL,
      tools: [weather, time],
      tool_choice: 'required',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(required.choices[0]!.message.tool_calls).toHaveLength(1);
    const named = await client.chat.completions.create({
      model: MODEL,
      tools: [weather, time],
      tool_choice: { type: 'function', function: { name: 'get_time' } },
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect((named.choices[0]!.message.tool_calls![0] as OpenAI.ChatCompletionMessageFunctionToolCall).function.name).toBe('get_time');
    const single = await client.chat.completions.create({
      model: MODEL,
      tools: [weather, time],
      parallel_tool_calls: false,
      messages: [{ role: 'user', content: 'get_weather and get_time' }],
    });
    expect(single.choices[0]!.message.tool_calls).toHaveLength(1);
  });

  it('quotes tool results verbatim in the next turn', async () => {
    const first = await client.chat.completions.create({
      model: MODEL,
      tools: [weather, time],
      messages: [{ role: 'user', content: 'get_weather and get_time' }],
    });
    const message = first.choices[0]!.message;
    const calls = message.tool_calls!;
    const completion = await client.chat.completions
      .stream({
        model: MODEL,
        tools: [weather, time],
        messages: [
          { role: 'user', content: 'get_weather and get_time' },
          message,
          { role: 'tool', tool_call_id: calls[0]!.id, content: 'cloudy' },
          { role: 'tool', tool_call_id: calls[1]!.id, content: '12:00' },
        ],
      })
      .finalChatCompletion();
    expect(completion.choices[0]!.message.content).toBe('Tool result: cloudy\nTool result: 12:00');
  });
});

describe('structured output', () => {
  it('answers JSON valid against a json_schema, streamed and not', async () => {
    const schema = {
      type: 'object',
      properties: { title: { type: 'string' }, year: { type: 'integer' } },
      required: ['title', 'year'],
      additionalProperties: false,
    };
    const request = {
      model: MODEL,
      response_format: { type: 'json_schema' as const, json_schema: { name: 'film', schema, strict: true } },
      messages: [{ role: 'user' as const, content: 'a film' }],
    };
    const completion = await client.chat.completions.create(request);
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ title: 'example', year: 1 });
    const streamed = await client.chat.completions.stream(request).finalChatCompletion();
    expect(streamed.choices[0]!.message.content).toBe(completion.choices[0]!.message.content);
  });

  it('answers a JSON object for json_object', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      response_format: { type: 'json_object' },
      messages: [{ role: 'user', content: 'reply in json' }],
    });
    expect(JSON.parse(completion.choices[0]!.message.content!)).toEqual({ echo: 'reply in json' });
  });
});

describe('reasoning', () => {
  it('counts hidden reasoning tokens for OpenAI reasoning models', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-5',
      reasoning_effort: 'low',
      messages: [{ role: 'user', content: 'think' }],
    });
    const reasoning = completion.usage!.completion_tokens_details!.reasoning_tokens!;
    expect(reasoning).toBeGreaterThan(0);
    expect(completion.usage!.completion_tokens).toBe(reasoning + countTextTokens('Echo: think'));
    expect((completion.choices[0]!.message as unknown as Record<string, unknown>).reasoning_content).toBeUndefined();
  });

  it('returns reasoning_content from Chat-compatible thinking models, streamed', async () => {
    const answer = await post(
      sim,
      '/v1/chat/completions',
      { model: 'deepseek-v3.2', stream: true, thinking: { type: 'enabled' }, messages: [{ role: 'user', content: 'think' }] },
      OPENAI_HEADERS,
    );
    const deltas = parseSse(answer.text)
      .slice(0, -1)
      .map((frame) => JSON.parse(frame.data).choices[0].delta);
    const reasoning = deltas.map((delta) => delta.reasoning_content ?? '').join('');
    expect(reasoning).toContain('The user wrote');
    expect(deltas.map((delta) => delta.content ?? '').join('')).toBe('Echo: think');
  });
});

describe('vision', () => {
  it('acknowledges data-URL and URL images', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'compare' },
            { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
            { type: 'image_url', image_url: { url: 'https://example.com/b.webp', detail: 'low' } },
          ],
        },
      ],
    });
    expect(completion.choices[0]!.message.content).toBe('Echo: compare [2 images: image/png, image/webp]');
    expect(completion.usage!.prompt_tokens).toBe(countTextTokens('compare') + 170);
  });
});

describe('prompt caching', () => {
  it('reports cached tokens for a repeated prefix of at least 1,024 tokens', async () => {
    const system = 'A stable system prompt, long enough to be cached. '.repeat(90);
    const first = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'first' },
      ],
    });
    expect(first.usage!.prompt_tokens_details!.cached_tokens).toBe(0);
    const second = await client.chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: system },
        { role: 'user', content: 'second' },
      ],
    });
    expect(second.usage!.prompt_tokens_details!.cached_tokens).toBe(countTextTokens(system));
    expect(second.usage!.prompt_tokens).toBe(countTextTokens(system) + countTextTokens('second'));
  });
});

it('serves sim- models and logs what it received', async () => {
  await client.chat.completions.create({ model: 'sim-chat', messages: [{ role: 'user', content: 'logged' }] });
  const entry = lastRequest(sim);
  expect(entry).toMatchObject({
    method: 'POST',
    path: '/v1/chat/completions',
    protocol: 'chat',
    model: 'sim-chat',
    stream: false,
    status: 200,
    completed: true,
    aborted: false,
  });
  expect(entry.headers.authorization).toBe('Bearer sim-key');
  expect(entry.body).toEqual({ model: 'sim-chat', messages: [{ role: 'user', content: 'logged' }] });
});

describe("a user text that forbids tools (issue 25: Claude Code's compaction prompt names every tool it forbids)", () => {
  it('is answered in text although it names a tool', async () => {
    const completion = await client.chat.completions.create({
      model: MODEL,
      tools: [weather],
      messages: [{ role: 'user', content: 'CRITICAL: Respond with TEXT ONLY. Do NOT call any tools: not get_weather either.' }],
    });
    expect(completion.choices[0]!.message.tool_calls ?? []).toEqual([]);
    expect(completion.choices[0]!.message.content).toMatch(/^Echo: CRITICAL/);
  });
});
