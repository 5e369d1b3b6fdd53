/** Chat Completions rejects what the real API rejects, in its own envelope and status. */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { errorOf, OPENAI_HEADERS, post } from './sim-support';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => sim.close());

const MODEL = 'gpt-4.1';
const tool = { type: 'function', function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } } };
const assistantCall = {
  role: 'assistant',
  content: null,
  tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'lookup', arguments: '{}' } }],
};

function body(messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: MODEL, messages, ...extra };
}

it.each<[string, Record<string, unknown>, RegExp, string | null]>([
  [
    'a tool message without a preceding tool_calls message',
    body([
      { role: 'user', content: 'hi' },
      { role: 'tool', tool_call_id: 'call_1', content: 'r' },
    ]),
    /messages with role 'tool' must be a response to a preceeding message with 'tool_calls'/,
    null,
  ],
  [
    'a tool message after a user message that followed the call',
    body(
      [
        { role: 'user', content: 'hi' },
        assistantCall,
        { role: 'user', content: 'wait' },
        { role: 'tool', tool_call_id: 'call_1', content: 'r' },
      ],
      { tools: [tool] },
    ),
    /tool_calls/,
    null,
  ],
  [
    'tool_calls without their tool messages',
    body([{ role: 'user', content: 'hi' }, assistantCall, { role: 'user', content: 'next' }], { tools: [tool] }),
    /did not have response messages: call_1/,
    null,
  ],
  [
    'a tool message answering an unknown call id',
    body([{ role: 'user', content: 'hi' }, assistantCall, { role: 'tool', tool_call_id: 'call_9', content: 'r' }], { tools: [tool] }),
    /'tool_call_id' of 'call_9' not found/,
    null,
  ],
  ['no messages', body([]), /empty array/, 'empty_array'],
  ['an unknown role', body([{ role: 'robot', content: 'hi' }]), /Invalid value: 'robot'/, 'invalid_value'],
  [
    'a tool name with a dot',
    body([{ role: 'user', content: 'hi' }], { tools: [{ type: 'function', function: { name: 'a.b' } }] }),
    /string does not match pattern/,
    'invalid_value',
  ],
  [
    'a tool_choice without tools',
    body([{ role: 'user', content: 'hi' }], { tool_choice: 'required' }),
    /only allowed when 'tools' are specified/,
    null,
  ],
  [
    'a temperature above 2',
    body([{ role: 'user', content: 'hi' }], { temperature: 3 }),
    /decimal above maximum value/,
    'decimal_above_max_value',
  ],
  [
    'max_tokens above the model limit',
    body([{ role: 'user', content: 'hi' }], { max_tokens: 100000 }),
    /max_tokens is too large/,
    'invalid_value',
  ],
  [
    'max_tokens on a reasoning model',
    body([{ role: 'user', content: 'hi' }], { model: 'gpt-5', max_tokens: 100 }),
    /Use 'max_completion_tokens' instead/,
    'unsupported_parameter',
  ],
  [
    'a temperature on a reasoning model',
    body([{ role: 'user', content: 'hi' }], { model: 'gpt-5', temperature: 0.2 }),
    /Only the default \(1\) value is supported/,
    'unsupported_value',
  ],
  [
    'reasoning_effort on a model without reasoning',
    body([{ role: 'user', content: 'hi' }], { reasoning_effort: 'low' }),
    /'reasoning_effort' is not supported/,
    'unsupported_parameter',
  ],
  [
    'stream_options without stream',
    body([{ role: 'user', content: 'hi' }], { stream_options: { include_usage: true } }),
    /only allowed when 'stream' is enabled/,
    null,
  ],
  [
    'json_object without the word json',
    body([{ role: 'user', content: 'hi' }], { response_format: { type: 'json_object' } }),
    /must contain the word 'json'/,
    null,
  ],
  [
    'a json_schema without a name',
    body([{ role: 'user', content: 'hi' }], { response_format: { type: 'json_schema', json_schema: { schema: {} } } }),
    /response_format\.json_schema\.name/,
    'missing_required_parameter',
  ],
  [
    'a strict schema without additionalProperties false',
    body([{ role: 'user', content: 'hi' }], {
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'x', strict: true, schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } },
      },
    }),
    /'additionalProperties' is required to be supplied and to be false/,
    'invalid_value',
  ],
  [
    'a strict tool whose properties are not all required',
    body([{ role: 'user', content: 'hi' }], {
      tools: [
        {
          type: 'function',
          function: {
            name: 'f',
            strict: true,
            parameters: { type: 'object', additionalProperties: false, properties: { a: { type: 'string' } } },
          },
        },
      ],
    }),
    /Missing 'a'/,
    'invalid_function_parameters',
  ],
  [
    'more than four stop strings',
    body([{ role: 'user', content: 'hi' }], { stop: ['a', 'b', 'c', 'd', 'e'] }),
    /array too long/,
    'array_above_max_length',
  ],
])('rejects %s with 400 invalid_request_error', async (_name, request, message, code) => {
  const answer = await post(sim, '/v1/chat/completions', request, OPENAI_HEADERS);
  expect(answer.status).toBe(400);
  const error = errorOf(answer);
  expect(Object.keys(error).sort()).toEqual(['code', 'message', 'param', 'type']);
  expect(error.type).toBe('invalid_request_error');
  expect(error.message).toMatch(message);
  expect(error.code).toBe(code);
});

it('rejects an unknown model and a model of another protocol with 404 model_not_found', async () => {
  for (const model of ['gpt-99', 'claude-sonnet-4-5', 'gemini-2.5-flash']) {
    const answer = await post(sim, '/v1/chat/completions', body([{ role: 'user', content: 'hi' }], { model }), OPENAI_HEADERS);
    expect(answer.status).toBe(404);
    expect(errorOf(answer)).toEqual({
      message: `The model \`${model}\` does not exist or you do not have access to it.`,
      type: 'invalid_request_error',
      param: null,
      code: 'model_not_found',
    });
  }
});

it('rejects missing and wrong credentials with 401', async () => {
  const missing = await post(sim, '/v1/chat/completions', body([{ role: 'user', content: 'hi' }]));
  expect(missing.status).toBe(401);
  expect(errorOf(missing).message).toMatch(/You didn't provide an API key/);
  const wrong = await post(sim, '/v1/chat/completions', body([{ role: 'user', content: 'hi' }]), {
    authorization: 'Bearer sk-wrong-key-123',
  });
  expect(wrong.status).toBe(401);
  expect(errorOf(wrong)).toMatchObject({ code: 'invalid_api_key', type: 'invalid_request_error' });
  const anthropicStyle = await post(sim, '/v1/chat/completions', body([{ role: 'user', content: 'hi' }]), { 'x-api-key': 'sim-key' });
  expect(anthropicStyle.status).toBe(401);
});

it('rejects malformed JSON with 400 and an unknown path with 404', async () => {
  const malformed = await post(sim, '/v1/chat/completions', '{', OPENAI_HEADERS);
  expect(malformed.status).toBe(400);
  expect(errorOf(malformed).message).toMatch(/could not parse the JSON body/);
  const unknown = await post(sim, '/v1/nothing', {}, OPENAI_HEADERS);
  expect(unknown.status).toBe(404);
  expect(errorOf(unknown).message).toBe('Invalid URL (POST /v1/nothing)');
});
