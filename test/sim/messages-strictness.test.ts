/** Messages rejects what the real API rejects, in its own envelope and status. */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { ANTHROPIC_HEADERS, post, PNG_BASE64 } from './sim-support';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => sim.close());

const MODEL = 'claude-sonnet-4-5';
const tool = { name: 'lookup', input_schema: { type: 'object', properties: { q: { type: 'string' } } } };
const call = { type: 'tool_use', id: 'toolu_01', name: 'lookup', input: { q: 'x' } };

async function rejection(
  body: Record<string, unknown>,
  headers: Record<string, string> = ANTHROPIC_HEADERS,
): Promise<{ status: number; type: string; message: string }> {
  const answer = await post(sim, '/v1/messages', body, headers);
  const json = answer.json as { type: string; error: { type: string; message: string } };
  expect(json.type).toBe('error');
  return { status: answer.status, type: json.error.type, message: json.error.message };
}

function base(messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { model: MODEL, max_tokens: 2000, messages, ...extra };
}

it.each<[string, Record<string, unknown>, RegExp]>([
  ['missing max_tokens', { model: MODEL, messages: [{ role: 'user', content: 'hi' }] }, /^max_tokens: Field required$/],
  ['max_tokens above the model limit', base([{ role: 'user', content: 'hi' }], { max_tokens: 100000 }), /100000 > 64000/],
  ['no messages', base([]), /at least one message/],
  ['a first assistant message', base([{ role: 'assistant', content: 'hi' }]), /first message must use the "user" role/],
  [
    'two user messages in a row',
    base([
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ]),
    /roles must alternate/,
  ],
  ['an empty text block', base([{ role: 'user', content: [{ type: 'text', text: '' }] }]), /text content blocks must be non-empty/],
  ['a whitespace-only text block', base([{ role: 'user', content: [{ type: 'text', text: '  ' }] }]), /must contain non-whitespace text/],
  ['an empty message', base([{ role: 'user', content: '' }]), /all messages must have non-empty content/],
  [
    'a tool_use id that breaks the pattern',
    base(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ ...call, id: 'call:1' }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call:1', content: 'r' }] },
      ],
      { tools: [tool] },
    ),
    /tool_use\.id: String should match pattern/,
  ],
  [
    'a tool_result without a tool_use before it',
    base([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'r' }] }]),
    /unexpected `tool_use_id` found in `tool_result` blocks: toolu_01/,
  ],
  [
    'a tool_use without its tool_result',
    base(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [call] },
        { role: 'user', content: 'next' },
      ],
      { tools: [tool] },
    ),
    /`tool_use` ids were found without `tool_result` blocks immediately after: toolu_01/,
  ],
  [
    'a tool_result after text',
    base(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [call] },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'first' },
            { type: 'tool_result', tool_use_id: 'toolu_01', content: 'r' },
          ],
        },
      ],
      { tools: [tool] },
    ),
    /`tool_result` blocks must come first/,
  ],
  [
    'a tool_result in an assistant message',
    base([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'r' }] },
    ]),
    /not allowed in `assistant` messages/,
  ],
  [
    'thinking with a forced tool',
    base([{ role: 'user', content: 'go' }], {
      tools: [tool],
      tool_choice: { type: 'any' },
      thinking: { type: 'enabled', budget_tokens: 1024 },
    }),
    /Thinking may not be enabled when tool_choice forces tool use/,
  ],
  [
    'a thinking budget below 1024',
    base([{ role: 'user', content: 'go' }], { thinking: { type: 'enabled', budget_tokens: 500 } }),
    /budget_tokens: Input should be greater than or equal to 1024/,
  ],
  [
    'a thinking budget not below max_tokens',
    base([{ role: 'user', content: 'go' }], { max_tokens: 1024, thinking: { type: 'enabled', budget_tokens: 1024 } }),
    /`max_tokens` must be greater than `thinking.budget_tokens`/,
  ],
  [
    'thinking with a temperature',
    base([{ role: 'user', content: 'go' }], { temperature: 0.5, thinking: { type: 'enabled', budget_tokens: 1024 } }),
    /temperature` may only be set to 1/,
  ],
  [
    'a thinking block it did not sign',
    base([
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'Zm9yZ2Vk' },
          { type: 'text', text: 'ok' },
        ],
      },
      { role: 'user', content: 'more' },
    ]),
    /Invalid `signature` in `thinking` block/,
  ],
  [
    'thinking on, tool results after an assistant turn without its thinking',
    base(
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [call] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: 'r' }] },
      ],
      { tools: [tool], thinking: { type: 'enabled', budget_tokens: 1024 } },
    ),
    /must start with a thinking block/,
  ],
  [
    'a temperature above 1',
    base([{ role: 'user', content: 'go' }], { temperature: 1.5 }),
    /temperature: Input should be less than or equal to 1/,
  ],
  [
    'a tool name with a dot',
    base([{ role: 'user', content: 'go' }], { tools: [{ ...tool, name: 'a.b' }] }),
    /tools\.0\.custom\.name: String should match pattern/,
  ],
  [
    'a tool schema that is not an object',
    base([{ role: 'user', content: 'go' }], { tools: [{ name: 'x', input_schema: { type: 'string' } }] }),
    /input_schema\.type: Input should be 'object'/,
  ],
  [
    'a named tool_choice for an unknown tool',
    base([{ role: 'user', content: 'go' }], { tools: [tool], tool_choice: { type: 'tool', name: 'other' } }),
    /Tool 'other' not found/,
  ],
  [
    'an image whose bytes are not its media type',
    base([{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/jpeg', data: PNG_BASE64 } }] }]),
    /Image does not match the provided media type image\/jpeg/,
  ],
  [
    'an unsupported image media type',
    base([{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/bmp', data: PNG_BASE64 } }] }]),
    /media_type: Input should be/,
  ],
  [
    'more than four cache breakpoints',
    base([
      { role: 'user', content: [1, 2, 3, 4, 5].map((n) => ({ type: 'text', text: `part ${n}`, cache_control: { type: 'ephemeral' } })) },
    ]),
    /A maximum of 4 blocks with cache_control/,
  ],
])('rejects %s with 400 invalid_request_error', async (_name, body, message) => {
  const error = await rejection(body);
  expect(error.status).toBe(400);
  expect(error.type).toBe('invalid_request_error');
  expect(error.message).toMatch(message);
});

it('rejects malformed JSON with 400', async () => {
  const answer = await post(sim, '/v1/messages', '{"model":', ANTHROPIC_HEADERS);
  expect(answer.status).toBe(400);
  expect(answer.json).toEqual({
    type: 'error',
    error: { type: 'invalid_request_error', message: expect.any(String) },
    request_id: expect.stringMatching(/^req_011/),
  });
});

it('rejects an unknown model with 404 not_found_error, and a model of another protocol', async () => {
  for (const model of ['claude-9', 'gpt-5', 'gemini-2.5-pro']) {
    const error = await rejection(base([{ role: 'user', content: 'hi' }], { model }));
    expect(error).toEqual({ status: 404, type: 'not_found_error', message: `model: ${model}` });
  }
});

it('rejects missing and wrong credentials with 401 authentication_error', async () => {
  const body = base([{ role: 'user', content: 'hi' }]);
  expect(await rejection(body, { 'anthropic-version': '2023-06-01' })).toEqual({
    status: 401,
    type: 'authentication_error',
    message: 'x-api-key header is required',
  });
  expect(await rejection(body, { 'anthropic-version': '2023-06-01', 'x-api-key': 'nope' })).toEqual({
    status: 401,
    type: 'authentication_error',
    message: 'invalid x-api-key',
  });
  expect(await rejection(body, { 'anthropic-version': '2023-06-01', authorization: 'Bearer nope' })).toMatchObject({ status: 401 });
});

it('requires anthropic-version', async () => {
  const error = await rejection(base([{ role: 'user', content: 'hi' }]), { 'x-api-key': 'sim-key' });
  expect(error).toEqual({ status: 400, type: 'invalid_request_error', message: 'anthropic-version: header is required' });
});
