/** Responses through the official SDK, streamed and not: every feature the gateway exercises. */
import type OpenAI from 'openai';
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { countTextTokens } from '../../scripts/provider-sim/tokens';
import { decodeEncryptedReasoning } from '../../scripts/provider-sim/answer/signatures';
import { OPENAI_HEADERS, openai, parseSse, PNG_BASE64, post } from './sim-support';

let sim: Simulator;
let client: OpenAI;
beforeAll(async () => {
  sim = await startSimulator();
  client = openai(sim);
});
afterAll(async () => sim.close());

const MODEL = 'gpt-5';
const weather: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_weather',
  strict: true,
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
};
const time: OpenAI.Responses.FunctionTool = {
  type: 'function',
  name: 'get_time',
  strict: false,
  parameters: { type: 'object', properties: {} },
};

/** The SDK sets `output_text` on created responses only, not on streamed final ones. */
function outputText(response: OpenAI.Responses.Response): string {
  return response.output
    .flatMap((item) => (item.type === 'message' ? item.content : []))
    .map((content) => (content.type === 'output_text' ? content.text : ''))
    .join('');
}

function functionCalls(response: OpenAI.Responses.Response): OpenAI.Responses.ResponseFunctionToolCall[] {
  return response.output.filter((item): item is OpenAI.Responses.ResponseFunctionToolCall => item.type === 'function_call');
}

describe('text', () => {
  it('echoes the input with usage and the full response object', async () => {
    const response = await client.responses.create({ model: MODEL, instructions: 'Be brief.', input: 'Hello there' });
    expect(response.id).toMatch(/^resp_/);
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Echo: Hello there');
    expect(response.usage).toMatchObject({
      input_tokens: countTextTokens('Be brief.') + countTextTokens('Hello there'),
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: countTextTokens('Echo: Hello there'),
      output_tokens_details: { reasoning_tokens: 0 },
    });
    expect(response.instructions).toBe('Be brief.');
  });

  it('streams through responses.stream() to the same answer', async () => {
    const response = await client.responses
      .stream({ model: MODEL, input: [{ role: 'user', content: 'one two three four' }] })
      .finalResponse();
    expect(outputText(response)).toBe('Echo: one two three four');
    expect(response.usage?.output_tokens).toBe(countTextTokens('Echo: one two three four'));
  });

  it('streams the full native event list with increasing sequence numbers', async () => {
    const answer = await post(sim, '/v1/responses', { model: MODEL, stream: true, input: 'a b c d' }, OPENAI_HEADERS);
    const events = parseSse(answer.text);
    expect(events.map((event) => event.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    events.forEach((event, index) => {
      const data = JSON.parse(event.data);
      expect(data.type).toBe(event.event);
      expect(data.sequence_number).toBe(index);
    });
    expect(JSON.parse(events[0]!.data).response).toMatchObject({ status: 'in_progress', output: [], usage: null });
  });

  it('reports max_output_tokens as incomplete', async () => {
    const response = await client.responses.create({ model: MODEL, max_output_tokens: 16, input: 'x'.repeat(200) });
    expect(response.status).toBe('incomplete');
    expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(response.usage?.output_tokens).toBe(16);
    const streamed = parseSse(
      (await post(sim, '/v1/responses', { model: MODEL, stream: true, max_output_tokens: 16, input: 'x'.repeat(200) }, OPENAI_HEADERS))
        .text,
    );
    expect(streamed[streamed.length - 1]!.event).toBe('response.incomplete');
  });
});

describe('tools', () => {
  it('calls the named tool with schema-valid arguments', async () => {
    const response = await client.responses.create({ model: MODEL, tools: [weather, time], input: 'use get_weather' });
    const [call] = functionCalls(response);
    expect(call).toMatchObject({ type: 'function_call', name: 'get_weather', status: 'completed' });
    expect(call!.id).toMatch(/^fc_/);
    expect(call!.call_id).toMatch(/^call_/);
    expect(JSON.parse(call!.arguments)).toEqual({ city: 'example' });
  });

  it('streams parallel calls', async () => {
    const response = await client.responses
      .stream({ model: MODEL, tools: [weather, time], input: 'get_time and get_weather' })
      .finalResponse();
    expect(functionCalls(response).map((call) => call.name)).toEqual(['get_time', 'get_weather']);
  });

  it('honours required and a named function', async () => {
    const required = await client.responses.create({ model: MODEL, tools: [weather, time], tool_choice: 'required', input: 'hi' });
    expect(functionCalls(required)).toHaveLength(1);
    const named = await client.responses.create({
      model: MODEL,
      tools: [weather, time],
      tool_choice: { type: 'function', name: 'get_time' },
      input: 'hi',
    });
    expect(functionCalls(named)[0]!.name).toBe('get_time');
  });

  it('quotes a function_call_output verbatim, given the call in the input', async () => {
    const first = await client.responses.create({ model: MODEL, tools: [weather], input: 'get_weather', store: false });
    const [call] = functionCalls(first);
    const next = await client.responses.create({
      model: MODEL,
      tools: [weather],
      store: false,
      input: [{ role: 'user', content: 'get_weather' }, call!, { type: 'function_call_output', call_id: call!.call_id, output: 'hail' }],
    });
    expect(next.output_text).toBe('Tool result: hail');
  });

  it('continues a stored response with previous_response_id', async () => {
    const first = await client.responses.create({ model: MODEL, tools: [weather], input: 'get_weather' });
    const [call] = functionCalls(first);
    const next = await client.responses
      .stream({
        model: MODEL,
        tools: [weather],
        previous_response_id: first.id,
        input: [{ type: 'function_call_output', call_id: call!.call_id, output: 'fog' }],
      })
      .finalResponse();
    expect(outputText(next)).toBe('Tool result: fog');
    expect(next.previous_response_id).toBe(first.id);
    const again = await client.responses.retrieve(first.id);
    expect(again.id).toBe(first.id);
  });
});

describe('reasoning', () => {
  it('returns a reasoning item with encrypted content and a summary, counted as reasoning tokens', async () => {
    const response = await client.responses.create({
      model: MODEL,
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      store: false,
      input: 'think hard',
    });
    const reasoning = response.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning.type).toBe('reasoning');
    expect(reasoning.id).toMatch(/^rs_/);
    const text = decodeEncryptedReasoning(reasoning.encrypted_content!);
    expect(text).not.toBeNull();
    expect(reasoning.summary).toEqual([{ type: 'summary_text', text }]);
    expect(response.usage?.output_tokens_details.reasoning_tokens).toBe(countTextTokens(text!));
    expect(response.output_text).toBe('Echo: think hard');
  });

  it('streams reasoning summary events, and accepts the encrypted item replayed without its id', async () => {
    const stream = client.responses.stream({
      model: MODEL,
      reasoning: { effort: 'low', summary: 'detailed' },
      include: ['reasoning.encrypted_content'],
      store: false,
      tools: [weather],
      input: 'get_weather',
    });
    const types: string[] = [];
    stream.on('event', (event) => types.push(event.type));
    const response = await stream.finalResponse();
    expect(types).toContain('response.reasoning_summary_part.added');
    expect(types).toContain('response.reasoning_summary_text.delta');
    expect(types).toContain('response.reasoning_summary_text.done');
    expect(types).toContain('response.function_call_arguments.delta');
    const reasoning = response.output[0] as OpenAI.Responses.ResponseReasoningItem;
    const [call] = functionCalls(response);
    const next = await client.responses.create({
      model: MODEL,
      store: false,
      tools: [weather],
      reasoning: { effort: 'low' },
      input: [
        { role: 'user', content: 'get_weather' },
        { type: 'reasoning', summary: [], encrypted_content: reasoning.encrypted_content } as unknown as OpenAI.Responses.ResponseInputItem,
        call!,
        { type: 'function_call_output', call_id: call!.call_id, output: 'dry' },
      ],
    });
    expect(next.output_text).toBe('Tool result: dry');
  });
});

describe('structured output', () => {
  it('answers JSON valid against text.format, streamed and not', async () => {
    const format = {
      type: 'json_schema' as const,
      name: 'city',
      strict: true,
      schema: {
        type: 'object',
        properties: { name: { type: 'string' }, population: { type: 'integer', minimum: 10 } },
        required: ['name', 'population'],
        additionalProperties: false,
      },
    };
    const response = await client.responses.create({ model: MODEL, text: { format }, input: 'a city' });
    expect(JSON.parse(response.output_text)).toEqual({ name: 'example', population: 10 });
    const streamed = await client.responses.stream({ model: MODEL, text: { format }, input: 'a city' }).finalResponse();
    expect(outputText(streamed)).toBe(response.output_text);
  });
});

describe('vision', () => {
  it('acknowledges input images', async () => {
    const response = await client.responses.create({
      model: MODEL,
      input: [
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' },
          ],
        },
      ],
    });
    expect(response.output_text).toBe('Echo: look [1 image: image/png]');
    expect(response.usage?.input_tokens).toBe(countTextTokens('look') + 85);
  });
});

describe('prompt caching', () => {
  it('reports cached tokens on a repeated long prefix', async () => {
    const instructions = 'Stable instructions for caching. '.repeat(130);
    await client.responses.create({ model: MODEL, instructions, input: 'first' });
    const second = await client.responses.create({ model: MODEL, instructions, input: 'second' });
    expect(second.usage?.input_tokens_details.cached_tokens).toBe(countTextTokens(instructions));
  });
});
