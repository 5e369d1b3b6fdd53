/** Responses rejects what the real API rejects, in its own envelope and status. */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { encryptedReasoning } from '../../scripts/provider-sim/answer/signatures';
import { errorOf, OPENAI_HEADERS, post } from './sim-support';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => sim.close());

const MODEL = 'gpt-5';
const call = { type: 'function_call', call_id: 'call_1', name: 'lookup', arguments: '{}' };

it.each<[string, Record<string, unknown>, number, RegExp, string | null]>([
  [
    'a previous_response_id it did not make',
    { previous_response_id: 'resp_unknown', input: 'hi' },
    400,
    /Previous response with id 'resp_unknown' not found/,
    'previous_response_not_found',
  ],
  [
    'a function_call_output without its call',
    {
      input: [
        { role: 'user', content: 'hi' },
        { type: 'function_call_output', call_id: 'call_1', output: 'r' },
      ],
    },
    400,
    /No tool call found for function call output with call_id call_1/,
    null,
  ],
  [
    'encrypted reasoning it did not make',
    { store: false, input: [{ role: 'user', content: 'hi' }, { type: 'reasoning', summary: [], encrypted_content: 'gAAAABforged' }, call] },
    400,
    /could not be verified/,
    'invalid_encrypted_content',
  ],
  [
    'a reasoning item by id that was never stored',
    { store: false, input: [{ role: 'user', content: 'hi' }, { type: 'reasoning', id: 'rs_gone', summary: [] }, call] },
    404,
    /Item with id 'rs_gone' not found/,
    null,
  ],
  [
    'a reasoning item without its following item',
    {
      store: false,
      input: [
        { role: 'user', content: 'hi' },
        { type: 'reasoning', summary: [], encrypted_content: encryptedReasoning('thought') },
      ],
    },
    400,
    /without its required following item/,
    null,
  ],
  [
    'response_format instead of text.format',
    { input: 'hi', response_format: { type: 'json_object' } },
    400,
    /moved to 'text.format'/,
    'unsupported_parameter',
  ],
  ['max_output_tokens below 16', { input: 'hi', max_output_tokens: 5 }, 400, /Expected a value >= 16/, 'integer_below_min_value'],
  [
    'a json_schema format without a name',
    { input: 'hi', text: { format: { type: 'json_schema', schema: {} } } },
    400,
    /text\.format\.name/,
    'missing_required_parameter',
  ],
  [
    'json_object without the word json',
    { input: 'hi', text: { format: { type: 'json_object' } } },
    400,
    /must contain the word 'json'/,
    null,
  ],
  [
    'a function name with a space',
    { input: 'hi', tools: [{ type: 'function', name: 'bad name', parameters: {} }] },
    400,
    /string does not match pattern/,
    'invalid_value',
  ],
  [
    'a named tool_choice for an unknown tool',
    { input: 'hi', tools: [{ type: 'function', name: 'a', parameters: {} }], tool_choice: { type: 'function', name: 'b' } },
    400,
    /Tool choice 'function' not found/,
    null,
  ],
  [
    'reasoning on a model without reasoning',
    { model: 'gpt-4.1', input: 'hi', reasoning: { effort: 'low' } },
    400,
    /'reasoning.effort' is not supported/,
    'unsupported_parameter',
  ],
])('rejects %s', async (_name, request, status, message, code) => {
  const answer = await post(sim, '/v1/responses', { model: MODEL, ...request }, OPENAI_HEADERS);
  expect(answer.status).toBe(status);
  const error = errorOf(answer);
  expect(error.type).toBe('invalid_request_error');
  expect(error.message).toMatch(message);
  expect(error.code).toBe(code);
});

it('rejects an unknown model with 400 model_not_found', async () => {
  const answer = await post(sim, '/v1/responses', { model: 'claude-sonnet-4-5', input: 'hi' }, OPENAI_HEADERS);
  expect(answer.status).toBe(400);
  expect(errorOf(answer)).toEqual({
    message: "The requested model 'claude-sonnet-4-5' does not exist.",
    type: 'invalid_request_error',
    param: 'model',
    code: 'model_not_found',
  });
});

it('does not keep responses made with store false', async () => {
  const first = await post(sim, '/v1/responses', { model: MODEL, input: 'hi', store: false }, OPENAI_HEADERS);
  const id = (first.json as { id: string }).id;
  const next = await post(sim, '/v1/responses', { model: MODEL, input: 'again', previous_response_id: id }, OPENAI_HEADERS);
  expect(next.status).toBe(400);
  expect(errorOf(next).code).toBe('previous_response_not_found');
});

it('rejects wrong credentials with 401 invalid_api_key', async () => {
  const answer = await post(sim, '/v1/responses', { model: MODEL, input: 'hi' }, { authorization: 'Bearer wrong-key-000' });
  expect(answer.status).toBe(401);
  expect(errorOf(answer).code).toBe('invalid_api_key');
});
