/** The small pure pieces: usage formulas, strict schemas, id embedding and sanitizing. */
import { wrapOpaque } from '../../../../src/protocols/shared/wrap-opaque';
import { recoverToolCallId, embedToolCallId } from '../../../../src/protocols/chat/chat-tool-call-id';
import { prepareStrictSchema } from '../../../../src/protocols/chat/chat-strict-schema';
import { convertChatUsage, toChatUsage } from '../../../../src/protocols/chat/convert-chat-usage';
import { sanitizeChatToolCallId } from '../../../../src/protocols/chat/sanitize-chat-tool-call-id';

describe('convertChatUsage', () => {
  it.each([
    [
      'OpenAI: input includes cached, output includes reasoning',
      {
        prompt_tokens: 100,
        completion_tokens: 50,
        total_tokens: 150,
        prompt_tokens_details: { cached_tokens: 30 },
        completion_tokens_details: { reasoning_tokens: 20 },
      },
      { inputTokens: 70, cacheReadTokens: 30, cacheWriteTokens: 0, outputTokens: 50, reasoningTokens: 20 },
    ],
    [
      'xai: reasoning outside completion_tokens, told by the total',
      { prompt_tokens: 10, completion_tokens: 5, total_tokens: 35, completion_tokens_details: { reasoning_tokens: 20 } },
      { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 25, reasoningTokens: 20 },
    ],
    [
      'a cached count above the prompt is capped',
      { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 50 } },
      { inputTokens: 0, cacheReadTokens: 10, cacheWriteTokens: 0, outputTokens: 1, reasoningTokens: 0 },
    ],
    [
      'junk numbers count as zero',
      { prompt_tokens: -3, completion_tokens: Number.NaN },
      { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 },
    ],
  ])('%s', (_name, raw, expected) => {
    expect(convertChatUsage(raw)).toEqual(expected);
  });

  it('renders prompt_tokens as all input, cache writes included', () => {
    expect(toChatUsage({ inputTokens: 1, cacheReadTokens: 2, cacheWriteTokens: 3, outputTokens: 4, reasoningTokens: 1 })).toEqual({
      prompt_tokens: 6,
      completion_tokens: 4,
      total_tokens: 10,
      prompt_tokens_details: { cached_tokens: 2 },
      completion_tokens_details: { reasoning_tokens: 1 },
    });
  });
});

describe('prepareStrictSchema', () => {
  it('adds additionalProperties:false everywhere, including in items, anyOf and $defs, leaving data alone', () => {
    const schema = {
      type: 'object',
      required: ['list', 'choice'],
      properties: {
        list: { type: 'array', items: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] } },
        choice: { anyOf: [{ $ref: '#/$defs/x' }, { type: 'null' }], default: { type: 'object' } },
      },
      $defs: { x: { type: ['object', 'null'], properties: {}, required: [] } },
    };
    const { schema: out, strict } = prepareStrictSchema(schema);
    expect(strict).toBe(true);
    expect(out).toEqual({
      ...schema,
      additionalProperties: false,
      properties: {
        list: {
          type: 'array',
          items: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false },
        },
        choice: schema.properties.choice,
      },
      $defs: { x: { type: ['object', 'null'], properties: {}, required: [], additionalProperties: false } },
    });
  });

  it.each([
    ['an optional property', { type: 'object', properties: { a: {} } }],
    ['open additional properties', { type: 'object', properties: {}, additionalProperties: true }],
    ['a nested optional property', { type: 'object', properties: { o: { type: 'object', properties: { b: {} } } }, required: ['o'] }],
  ])('reports %s as not strict and returns the schema untouched', (_name, schema) => {
    expect(prepareStrictSchema(schema)).toEqual({ schema, strict: false });
  });
});

describe('tool call ids', () => {
  const context = { newId: (prefix: string) => `${prefix}1`, now: () => 0 };
  it('leaves ids without a signature unchanged and recovers embedded ones', () => {
    expect(embedToolCallId('call_1', undefined, context)).toBe('call_1');
    expect(recoverToolCallId('call_1', context)).toEqual({ id: 'call_1' });
    const embedded = embedToolCallId('fc-1', { origin: 'generate-content', value: 'sig' }, context);
    expect(embedded).toMatch(/^gw1_g_[A-Za-z0-9_-]+$/);
    expect(recoverToolCallId(embedded, context)).toEqual({ id: 'fc-1', signature: { origin: 'generate-content', value: 'sig' } });
  });

  it('keeps a bare wrapped value from another component whole', () => {
    const bare = wrapOpaque({ origin: 'responses', value: 'not-a-pair' });
    expect(recoverToolCallId(bare, context)).toEqual({ id: bare, signature: { origin: 'responses', value: 'not-a-pair' } });
  });

  it('sanitizes deterministically and only when Chat would reject the id', () => {
    expect(sanitizeChatToolCallId('call_abc-1')).toBe('call_abc-1');
    const long = 'x'.repeat(41);
    expect(sanitizeChatToolCallId(long)).toBe(sanitizeChatToolCallId(long));
    expect(sanitizeChatToolCallId(long)).toMatch(/^call_[A-Za-z0-9_-]{35}$/);
    expect(sanitizeChatToolCallId('a b')).not.toBe(sanitizeChatToolCallId('a_b'));
    expect(sanitizeChatToolCallId('')).toMatch(/^call_/);
  });
});
