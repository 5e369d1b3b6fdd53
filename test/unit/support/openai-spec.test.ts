/**
 * The OpenAI-document validator the conformance tests rely on (test/support/openai-spec.ts) refuses
 * a body that breaks the schema, for every root those tests use: a conformance test that validates
 * against it can fail.
 */
import { emittedProblems, requestProblems, UNDER_DECLARED } from '../../support/openai-spec';

const USAGE = {
  input_tokens: 10,
  input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
  output_tokens: 5,
  output_tokens_details: { reasoning_tokens: 0 },
  total_tokens: 15,
};
const COMPACTION_ITEM = { id: 'cmp_1', type: 'compaction', encrypted_content: 'opaque' };
const RESPONSE = {
  id: 'resp_1',
  object: 'response',
  created_at: 1,
  status: 'completed',
  model: 'gpt-5',
  output: [COMPACTION_ITEM],
  usage: USAGE,
  error: null,
  incomplete_details: null,
  instructions: null,
  metadata: {},
  parallel_tool_calls: true,
  temperature: 1,
  top_p: 1,
  tool_choice: 'auto',
  tools: [],
};

/** Each case: a body the document accepts, and the same body broken as a regression would break it. */
const EMITTED: Array<{ schema: string; valid: unknown; broken: unknown; what: string }> = [
  {
    schema: 'ErrorResponse',
    what: 'an error without its message',
    valid: { error: { message: 'bad', type: 'invalid_request_error', param: null, code: 'context_length_exceeded' } },
    broken: { error: { type: 'invalid_request_error', param: null, code: null } },
  },
  {
    schema: 'ErrorResponse',
    what: 'an error whose code is a number',
    valid: { error: { message: 'bad', type: 'invalid_request_error', param: null, code: null } },
    broken: { error: { message: 'bad', type: 'invalid_request_error', param: null, code: 400 } },
  },
  {
    schema: 'CompactResource',
    what: 'a compaction item without its encrypted content',
    valid: { id: 'resp_1', object: 'response.compaction', created_at: 1, output: [COMPACTION_ITEM], usage: USAGE },
    broken: { id: 'resp_1', object: 'response.compaction', created_at: 1, output: [{ id: 'cmp_1', type: 'compaction' }], usage: USAGE },
  },
  {
    schema: 'CompactResource',
    what: 'usage without its details',
    valid: { id: 'resp_1', object: 'response.compaction', created_at: 1, output: [COMPACTION_ITEM], usage: USAGE },
    broken: {
      id: 'resp_1',
      object: 'response.compaction',
      created_at: 1,
      output: [COMPACTION_ITEM],
      usage: { input_tokens: 1, output_tokens: 1, total_tokens: 2 },
    },
  },
  {
    schema: 'Response',
    what: 'a compaction item of another type name',
    valid: RESPONSE,
    broken: { ...RESPONSE, output: [{ ...COMPACTION_ITEM, type: 'compaction_summary' }] },
  },
  {
    schema: 'ResponseStreamEvent',
    what: 'an output_item.done without its sequence number',
    valid: { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item: COMPACTION_ITEM },
    broken: { type: 'response.output_item.done', output_index: 0, item: COMPACTION_ITEM },
  },
  {
    schema: 'ResponsesServerEvent',
    what: 'a WebSocket error frame without its error',
    valid: { type: 'error', status: 400, error: { type: 'invalid_request_error', code: null, message: 'bad', param: null } },
    broken: { type: 'error', status: 400, message: 'bad' },
  },
  {
    schema: 'ResponsesServerEvent',
    what: 'a WebSocket frame of an unknown event type',
    valid: { type: 'response.completed', sequence_number: 9, response: RESPONSE },
    broken: { type: 'response.finished', sequence_number: 9, response: RESPONSE },
  },
  {
    schema: 'CreateChatCompletionStreamResponse',
    what: 'a chunk whose usage is a string',
    valid: { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: null },
    broken: { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: 'none' },
  },
];

const REQUESTS: Array<{ schema: Parameters<typeof requestProblems>[0]; valid: unknown; broken: unknown; what: string }> = [
  {
    schema: 'CreateChatCompletionRequest',
    what: "an assistant turn carrying the gateway's reasoning_signature",
    valid: {
      model: 'gpt-4.1',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello' },
      ],
    },
    broken: {
      model: 'gpt-4.1',
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: 'hello', reasoning_signature: 'sig' },
      ],
    },
  },
  {
    schema: 'CreateResponse',
    what: 'a call_id over 64 characters',
    valid: { model: 'gpt-5', input: [{ type: 'function_call_output', call_id: 'call_1', output: 'ok' }] },
    broken: { model: 'gpt-5', input: [{ type: 'function_call_output', call_id: 'c'.repeat(65), output: 'ok' }] },
  },
  {
    schema: 'CompactResponseMethodPublicBody',
    what: 'a field the endpoint does not take',
    valid: { model: 'gpt-5', input: [{ role: 'user', content: 'hi' }], instructions: 'x', tools: [], parallel_tool_calls: false },
    broken: { model: 'gpt-5', input: [{ role: 'user', content: 'hi' }], gateway_summary: 'x' },
  },
];

describe('the OpenAI document validator refuses what the document refuses', () => {
  it.each(EMITTED)('$schema: accepts the valid body, refuses $what', ({ schema, valid, broken }) => {
    expect(emittedProblems(schema, valid)).toEqual([]);
    expect(emittedProblems(schema, broken)).not.toEqual([]);
  });

  it.each(REQUESTS)('$schema request: accepts the valid body, refuses $what', ({ schema, valid, broken }) => {
    expect(requestProblems(schema, valid)).toEqual([]);
    expect(requestProblems(schema, broken)).not.toEqual([]);
  });

  it('gives every under-declaration a reason', () => {
    for (const entry of UNDER_DECLARED) expect(entry.reason.length).toBeGreaterThan(40);
  });
});
