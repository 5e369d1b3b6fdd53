/**
 * Issue 25 item 2: each upstream codec recognises its providers' context-overflow refusal (with the
 * numbers when the wording has them); each inbound codec words it as its own provider does.
 */
import { GatewayError } from '../../../src/errors/gateway-error';
import { chatCodec } from '../../../src/protocols/chat';
import { generateContentCodec } from '../../../src/protocols/generate-content';
import { messagesCodec } from '../../../src/protocols/messages';
import { responsesCodec } from '../../../src/protocols/responses';

const json = (value: unknown): string => JSON.stringify(value);

describe('upstream codecs recognise context overflow', () => {
  it.each([
    [
      'Anthropic',
      messagesCodec,
      400,
      json({
        type: 'error',
        error: { type: 'invalid_request_error', message: 'prompt is too long: 208310 tokens > 200000 maximum' },
        request_id: 'req_011',
      }),
      { inputTokens: 208310, maxTokens: 200000 },
    ],
    [
      'OpenAI Chat',
      chatCodec,
      400,
      json({
        error: {
          message:
            "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
          type: 'invalid_request_error',
          param: 'messages',
          code: 'context_length_exceeded',
        },
      }),
      { inputTokens: 130512, maxTokens: 128000 },
    ],
    [
      'DeepSeek',
      chatCodec,
      400,
      json({
        error: {
          message:
            "This model's maximum context length is 65536 tokens. However, you requested 70000 tokens (70000 in the messages, 0 in the completion). Please reduce the length of the messages or completion.",
          type: 'invalid_request_error',
          param: null,
          code: 'invalid_request_error',
        },
      }),
      { inputTokens: 70000, maxTokens: 65536 },
    ],
    [
      'Mistral',
      chatCodec,
      400,
      json({
        object: 'error',
        message: 'Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length',
        type: 'invalid_request_message_error',
        param: null,
        code: '3051',
      }),
      { inputTokens: 40000, maxTokens: 32768 },
    ],
    [
      'xAI',
      chatCodec,
      400,
      json({
        code: 'Client specified an invalid argument',
        error: "This model's maximum prompt length is 131072 but the request contains 150000 tokens.",
      }),
      { inputTokens: 150000, maxTokens: 131072 },
    ],
    [
      'Moonshot',
      chatCodec,
      400,
      json({ error: { message: 'Invalid request: Your request exceeded model token limit: 8192', type: 'invalid_request_error' } }),
      { maxTokens: 8192 },
    ],
    [
      'OpenAI Responses',
      responsesCodec,
      400,
      json({
        error: {
          message: 'Your input exceeds the context window of this model. Please adjust your input and try again.',
          type: 'invalid_request_error',
          param: 'input',
          code: 'context_length_exceeded',
        },
      }),
      {},
    ],
    [
      'Google',
      generateContentCodec,
      400,
      json({
        error: {
          code: 400,
          message: 'The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).',
          status: 'INVALID_ARGUMENT',
        },
      }),
      { inputTokens: 1196265, maxTokens: 1048575 },
    ],
  ] as const)('%s', (_name, codec, status, body, overflow) => {
    const error = codec.upstream.decodeError(status, body, {});
    expect(error.kind).toBe('invalid_request');
    expect(error.status).toBe(400);
    expect(error.contextOverflow).toEqual(overflow);
  });

  it('leaves other client errors alone', () => {
    expect(
      chatCodec.upstream.decodeError(
        400,
        json({ error: { message: "Invalid 'messages[0].content'", type: 'invalid_request_error', code: 'invalid_value' } }),
        {},
      ).contextOverflow,
    ).toBeUndefined();
    expect(
      messagesCodec.upstream.decodeError(
        400,
        json({ type: 'error', error: { type: 'invalid_request_error', message: 'max_tokens: Field required' } }),
        {},
      ).contextOverflow,
    ).toBeUndefined();
    expect(
      generateContentCodec.upstream.decodeError(429, json({ error: { code: 429, message: 'quota', status: 'RESOURCE_EXHAUSTED' } }), {})
        .contextOverflow,
    ).toBeUndefined();
  });

  it('recognises an overflow reported inside a Responses stream', () => {
    const frame = `event: error\ndata: ${json({ type: 'error', code: 'context_length_exceeded', message: 'Your input exceeds the context window of this model.' })}\n\n`;
    const decoder = responsesCodec.upstream.createStreamDecoder({ newId: (p) => `${p}1`, now: () => 0, toolNames: {} });
    const events = [...decoder.push(frame), ...decoder.end()];
    const failure = events.find((event) => event.type === 'error');
    expect(failure && 'error' in failure ? (failure.error as GatewayError).contextOverflow : undefined).toEqual({});
  });
});

describe('inbound codecs word an overflow as their own provider does', () => {
  const overflow = new GatewayError('invalid_request', 'upstream said something else', {
    contextOverflow: { inputTokens: 9000, maxTokens: 8192 },
  });

  it('Messages: invalid_request_error "prompt is too long: N tokens > M maximum"', () => {
    expect(messagesCodec.inbound.encodeError(overflow)).toMatchObject({
      status: 400,
      body: { type: 'error', error: { type: 'invalid_request_error', message: 'prompt is too long: 9000 tokens > 8192 maximum' } },
    });
  });
  it("Chat: context_length_exceeded with OpenAI's message", () => {
    expect(chatCodec.inbound.encodeError(overflow)).toMatchObject({
      status: 400,
      body: {
        error: {
          type: 'invalid_request_error',
          code: 'context_length_exceeded',
          param: 'messages',
          message:
            "This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens. Please reduce the length of the messages.",
        },
      },
    });
  });
  it('Responses: context_length_exceeded', () => {
    expect(responsesCodec.inbound.encodeError(overflow)).toMatchObject({
      status: 400,
      body: { error: { type: 'invalid_request_error', code: 'context_length_exceeded', param: 'input' } },
    });
  });
  it('Generate-Content: INVALID_ARGUMENT with the token-limit message', () => {
    expect(generateContentCodec.inbound.encodeError(overflow)).toMatchObject({
      status: 400,
      body: {
        error: {
          code: 400,
          status: 'INVALID_ARGUMENT',
          message: 'The input token count (9000) exceeds the maximum number of tokens allowed (8192).',
        },
      },
    });
  });
  it('a mid-stream error frame says it the same way', () => {
    const encoder = messagesCodec.inbound.createStreamEncoder({ model: 'm' }, { newId: (p) => `${p}1`, now: () => 0 });
    expect(encoder.fail(overflow).join('')).toContain('prompt is too long: 9000 tokens > 8192 maximum');
  });
});
