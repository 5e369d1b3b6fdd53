/** Messages through the official SDK, streamed and not: every feature the gateway exercises. */
import type Anthropic from '@anthropic-ai/sdk';
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { thinkingSignature } from '../../scripts/provider-sim/answer/signatures';
import { countTextTokens } from '../../scripts/provider-sim/tokens';
import { anthropic, ANTHROPIC_HEADERS, lastRequest, parseSse, PNG_BASE64, JPEG_BASE64, post } from './sim-support';

let sim: Simulator;
let client: Anthropic;

beforeAll(async () => {
  sim = await startSimulator();
  client = anthropic(sim);
});
afterAll(async () => sim.close());

const MODEL = 'claude-haiku-4-5';
const weather = {
  name: 'get_weather',
  description: 'Weather of a city',
  input_schema: {
    type: 'object' as const,
    properties: {
      city: { type: 'string' },
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      days: { type: 'integer', minimum: 3 },
    },
    required: ['city', 'unit', 'days'],
  },
};
const time = { name: 'get_time', input_schema: { type: 'object' as const, properties: { zone: { type: 'string' } }, required: ['zone'] } };

describe('text', () => {
  it('echoes the last user text, with usage by the fixed tokenizer', async () => {
    const message = await client.messages.create({ model: MODEL, max_tokens: 100, messages: [{ role: 'user', content: 'Hello there' }] });
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: Hello there' }]);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBe(countTextTokens('Hello there'));
    expect(message.usage.output_tokens).toBe(countTextTokens('Echo: Hello there'));
    expect(message.id).toMatch(/^msg_/);
  });

  it('gives the same answer to the same request', async () => {
    const request = { model: MODEL, max_tokens: 100, messages: [{ role: 'user' as const, content: 'same again' }] };
    const first = await client.messages.create(request);
    const second = await client.messages.create(request);
    expect(second.content).toEqual(first.content);
    expect(second.usage).toEqual(first.usage);
  });

  it('streams the same answer through messages.stream().finalMessage()', async () => {
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 100,
      system: 'Be brief.',
      messages: [{ role: 'user', content: 'one two three four five six seven' }],
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: one two three four five six seven' }]);
    expect(message.usage.input_tokens).toBe(countTextTokens('Be brief.') + countTextTokens('one two three four five six seven'));
    expect(message.usage.output_tokens).toBe(countTextTokens('Echo: one two three four five six seven'));
  });

  it('streams the native event sequence, with one ping and contiguous block indexes', async () => {
    const answer = await post(
      sim,
      '/v1/messages',
      { model: MODEL, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'a b c d e f g' }] },
      ANTHROPIC_HEADERS,
    );
    expect(answer.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(answer.text);
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'content_block_start',
      'ping',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const event of events) expect(JSON.parse(event.data).type).toBe(event.event);
    const start = JSON.parse(events[0]!.data);
    expect(Object.keys(start.message.usage)).toEqual([
      'input_tokens',
      'cache_creation_input_tokens',
      'cache_read_input_tokens',
      'cache_creation',
      'output_tokens',
      'service_tier',
      'inference_geo',
    ]);
    const delta = JSON.parse(events[7]!.data);
    expect(delta.usage.output_tokens).toBe(countTextTokens('Echo: a b c d e f g'));
  });

  it('answers `repeat:N:` with the text N times, one chunk per repetition', async () => {
    const answer = await post(
      sim,
      '/v1/messages',
      { model: MODEL, max_tokens: 1000, stream: true, messages: [{ role: 'user', content: 'repeat:100:word ' }] },
      ANTHROPIC_HEADERS,
    );
    const deltas = parseSse(answer.text)
      .filter((event) => event.event === 'content_block_delta')
      .map((event) => JSON.parse(event.data).delta.text);
    expect(deltas).toHaveLength(100);
    expect(deltas.join('')).toBe('word '.repeat(100));
  });
});

describe('stop reasons', () => {
  it('truncates to max_tokens', async () => {
    const message = await client.messages.create({
      model: MODEL,
      max_tokens: 3,
      messages: [{ role: 'user', content: 'a long sentence that will not fit' }],
    });
    expect(message.stop_reason).toBe('max_tokens');
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: a long' }]);
    expect(message.usage.output_tokens).toBe(3);
  });

  it('cuts before a stop sequence and names it', async () => {
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 100,
      stop_sequences: ['STOP'],
      messages: [{ role: 'user', content: 'go on STOP here' }],
    });
    const message = await stream.finalMessage();
    expect(message.stop_reason).toBe('stop_sequence');
    expect(message.stop_sequence).toBe('STOP');
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: go on ' }]);
  });
});

describe('tools', () => {
  it('calls the tool the user names, with arguments valid for its schema', async () => {
    const message = await client.messages.create({
      model: MODEL,
      max_tokens: 200,
      tools: [weather, time],
      messages: [{ role: 'user', content: 'use get_weather please' }],
    });
    expect(message.stop_reason).toBe('tool_use');
    expect(message.content).toHaveLength(1);
    const call = message.content[0] as Anthropic.ToolUseBlock;
    expect(call.type).toBe('tool_use');
    expect(call.name).toBe('get_weather');
    expect(call.id).toMatch(/^toolu_[A-Za-z0-9]+$/);
    expect(call.input).toEqual({ city: 'example', unit: 'celsius', days: 3 });
  });

  it('makes parallel calls when several tools are named, streamed', async () => {
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 200,
      tools: [weather, time],
      messages: [{ role: 'user', content: 'get_time then get_weather' }],
    });
    const message = await stream.finalMessage();
    const calls = message.content.filter((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
    expect(calls.map((call) => call.name)).toEqual(['get_time', 'get_weather']);
    expect(calls[0]!.input).toEqual({ zone: 'example' });
    expect(calls[1]!.input).toEqual({ city: 'example', unit: 'celsius', days: 3 });
    expect(message.stop_reason).toBe('tool_use');
  });

  it('makes one call when parallel use is disabled', async () => {
    const message = await client.messages.create({
      model: MODEL,
      max_tokens: 200,
      tools: [weather, time],
      tool_choice: { type: 'auto', disable_parallel_tool_use: true },
      messages: [{ role: 'user', content: 'get_time then get_weather' }],
    });
    expect(message.content.map((block) => (block as Anthropic.ToolUseBlock).name)).toEqual(['get_time']);
  });

  it('honours a forced tool (any, and a named tool)', async () => {
    const any = await client.messages.create({
      model: MODEL,
      max_tokens: 200,
      tools: [weather, time],
      tool_choice: { type: 'any' },
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect((any.content[0] as Anthropic.ToolUseBlock).name).toBe('get_weather');
    const named = await client.messages.create({
      model: MODEL,
      max_tokens: 200,
      tools: [weather, time],
      tool_choice: { type: 'tool', name: 'get_time' },
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect((named.content[0] as Anthropic.ToolUseBlock).name).toBe('get_time');
  });

  it('does not call a tool with tool_choice none', async () => {
    const message = await client.messages.create({
      model: MODEL,
      max_tokens: 200,
      tools: [weather],
      tool_choice: { type: 'none' },
      messages: [{ role: 'user', content: 'get_weather' }],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: get_weather' }]);
  });

  it('streams a tool without arguments as one empty input_json_delta', async () => {
    const noArgs = { name: 'refresh', input_schema: { type: 'object' as const, properties: {} } };
    const answer = await post(
      sim,
      '/v1/messages',
      { model: MODEL, max_tokens: 100, stream: true, tools: [noArgs], messages: [{ role: 'user', content: 'refresh' }] },
      ANTHROPIC_HEADERS,
    );
    const deltas = parseSse(answer.text)
      .filter((event) => event.event === 'content_block_delta')
      .map((event) => JSON.parse(event.data).delta);
    expect(deltas).toEqual([{ type: 'input_json_delta', partial_json: '' }]);
  });

  it('answers tool results by quoting them verbatim', async () => {
    const first = await client.messages.create({
      model: MODEL,
      max_tokens: 200,
      tools: [weather],
      messages: [{ role: 'user', content: 'get_weather' }],
    });
    const call = first.content[0] as Anthropic.ToolUseBlock;
    const stream = client.messages.stream({
      model: MODEL,
      max_tokens: 200,
      tools: [weather],
      messages: [
        { role: 'user', content: 'get_weather' },
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'Sunny, 21 °C' }] },
      ],
    });
    const message = await stream.finalMessage();
    expect(message.content).toEqual([{ type: 'text', text: 'Tool result: Sunny, 21 °C' }]);
    expect(message.stop_reason).toBe('end_turn');
  });
});

describe('thinking', () => {
  const request = {
    model: MODEL,
    max_tokens: 3000,
    thinking: { type: 'enabled' as const, budget_tokens: 1024 },
    tools: [weather],
    messages: [{ role: 'user' as const, content: 'think, then get_weather' }],
  };

  it('returns a signed thinking block first, counted in output tokens only', async () => {
    const message = await client.messages.create(request);
    const thinking = message.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.type).toBe('thinking');
    expect(thinking.signature).toBe(thinkingSignature(thinking.thinking));
    expect(message.content[1]!.type).toBe('tool_use');
    const args = JSON.stringify((message.content[1] as Anthropic.ToolUseBlock).input);
    expect(message.usage.output_tokens).toBe(countTextTokens(thinking.thinking) + countTextTokens(args));
    // Like the real API (captures/messages/anthropic-clear-thinking.1.json): no thinking counter of its own.
    expect(Object.keys(message.usage)).not.toContain('output_tokens_details');
  });

  it('streams thinking and signature deltas, and accepts the signed block on replay', async () => {
    const message = await client.messages.stream(request).finalMessage();
    const thinking = message.content[0] as Anthropic.ThinkingBlock;
    expect(thinking.signature).toBe(thinkingSignature(thinking.thinking));
    const call = message.content[1] as Anthropic.ToolUseBlock;
    const next = await client.messages.create({
      ...request,
      messages: [
        ...request.messages,
        { role: 'assistant', content: message.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'rain' }] },
      ],
    });
    expect(next.content[0]!.type).toBe('thinking');
    expect(next.content[1]).toEqual({ type: 'text', text: 'Tool result: rain' });
  });
});

describe('prompt caching', () => {
  it('reports a cache write, then a cache read on the repeated prefix', async () => {
    const system = [
      { type: 'text' as const, text: 'A long and stable system prompt. '.repeat(20), cache_control: { type: 'ephemeral' as const } },
    ];
    const systemTokens = countTextTokens(system[0]!.text);
    const first = await client.messages.create({
      model: MODEL,
      max_tokens: 50,
      system,
      messages: [{ role: 'user', content: 'first question' }],
    });
    expect(first.usage.cache_creation_input_tokens).toBe(systemTokens);
    expect(first.usage.cache_read_input_tokens).toBe(0);
    expect(first.usage.input_tokens).toBe(countTextTokens('first question'));
    const second = await client.messages
      .stream({ model: MODEL, max_tokens: 50, system, messages: [{ role: 'user', content: 'second question' }] })
      .finalMessage();
    expect(second.usage.cache_read_input_tokens).toBe(systemTokens);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
    expect(second.usage.input_tokens).toBe(countTextTokens('second question'));
  });

  it('reports no cache figures without cache_control', async () => {
    const request = {
      model: MODEL,
      max_tokens: 50,
      system: 'Stable prompt. '.repeat(400),
      messages: [{ role: 'user' as const, content: 'q' }],
    };
    await client.messages.create(request);
    const second = await client.messages.create(request);
    expect(second.usage.cache_read_input_tokens).toBe(0);
    expect(second.usage.cache_creation_input_tokens).toBe(0);
  });
});

describe('structured output', () => {
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'tags', 'score', 'kind'],
    properties: {
      name: { type: 'string' },
      tags: { type: 'array', items: { type: 'string' } },
      score: { type: 'number' },
      kind: { enum: ['a', 'b'] },
    },
  };

  it('answers JSON valid against output_config.format, streamed and not', async () => {
    const body = {
      model: MODEL,
      max_tokens: 200,
      output_config: { format: { type: 'json_schema', schema } },
      messages: [{ role: 'user', content: 'describe' }],
    };
    const plain = await post(sim, '/v1/messages', body, ANTHROPIC_HEADERS);
    const text = (plain.json as { content: { text: string }[] }).content[0]!.text;
    expect(JSON.parse(text)).toEqual({ name: 'example', tags: ['example'], score: 1, kind: 'a' });
    const streamed = await client.messages.stream(body as unknown as Anthropic.MessageStreamParams).finalMessage();
    expect(JSON.parse((streamed.content[0] as Anthropic.TextBlock).text)).toEqual(JSON.parse(text));
  });
});

describe('vision', () => {
  it('acknowledges base64 and URL images with their media types', async () => {
    const message = await client.messages.create({
      model: MODEL,
      max_tokens: 100,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
            { type: 'text', text: 'what is this?' },
          ],
        },
      ],
    });
    expect(message.content).toEqual([{ type: 'text', text: 'Echo: what is this? [2 images: image/png, image/jpeg]' }]);
    expect(message.usage.input_tokens).toBe(85 * 2 + countTextTokens('what is this?'));
  });

  it('streams the same acknowledgement for one JPEG', async () => {
    const message = await client.messages
      .stream({
        model: MODEL,
        max_tokens: 100,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: JPEG_BASE64 } },
              { type: 'text', text: 'and this?' },
            ],
          },
        ],
      })
      .finalMessage();
    expect((message.content[0] as Anthropic.TextBlock).text).toBe('Echo: and this? [1 image: image/jpeg]');
  });
});

describe('credentials and models', () => {
  it('accepts x-api-key as well as the Bearer the SDK sends', async () => {
    await client.messages.create({ model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(lastRequest(sim).headers.authorization).toBe('Bearer sim-key');
    const raw = await post(
      sim,
      '/v1/messages',
      { model: MODEL, max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] },
      ANTHROPIC_HEADERS,
    );
    expect(raw.status).toBe(200);
    expect(raw.headers.get('request-id')).toMatch(/^req_/);
  });

  it('serves any sim- model', async () => {
    const message = await client.messages.create({ model: 'sim-anything', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.model).toBe('sim-anything');
  });
});
