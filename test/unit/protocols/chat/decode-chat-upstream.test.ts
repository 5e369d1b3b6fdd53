/** Provider answers (whole and streamed) → IR, on the vendor quirks the captures do not cover. */
import { GatewayError } from '../../../../src/errors/gateway-error';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { chatCodec } from '../../../../src/protocols/chat';
import { accumulateIrEvents, streamContractViolations } from './ir-accumulator';
import { testContext } from './chat-test-context';

const decode = (body: unknown, toolNames: Record<string, string> = {}) => chatCodec.upstream.decodeResponse(body, testContext(toolNames));

function completion(
  message: Record<string, unknown>,
  finish: string | null = 'stop',
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: 'up-1',
    object: 'chat.completion',
    created: 5,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }],
    ...extra,
  };
}

describe('decodeChatResponse', () => {
  it('restores sanitized tool names, synthesizes missing ids and stringifies object arguments', () => {
    const response = decode(
      completion(
        {
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'files_read_v2', arguments: '{"p":1}' } },
            { type: 'function', function: { name: 'other', arguments: { q: 2 } } },
          ],
        },
        'tool_calls',
      ),
      { files_read_v2: 'files.read/v2' },
    );
    expect(response.parts).toEqual([
      { type: 'tool_call', id: 'c1', name: 'files.read/v2', argumentsJson: '{"p":1}' },
      { type: 'tool_call', id: 'call_test1', name: 'other', argumentsJson: '{"q":2}' },
    ]);
    expect(response).toMatchObject({ id: 'up-1', model: 'm', created: 5, finish: { unified: 'tool_calls', raw: 'tool_calls' } });
  });

  it('reads reasoning from reasoning_content, reasoning, or mistral thinking parts', () => {
    expect(decode(completion({ content: 'a', reasoning: 'r1' })).parts).toEqual([
      { type: 'reasoning', text: 'r1' },
      { type: 'text', text: 'a' },
    ]);
    expect(
      decode(
        completion({
          content: [
            {
              type: 'thinking',
              thinking: [
                { type: 'text', text: 'think ' },
                { type: 'text', text: 'more' },
              ],
            },
            { type: 'text', text: 'answer' },
          ],
        }),
      ).parts,
    ).toEqual([
      { type: 'reasoning', text: 'think more' },
      { type: 'text', text: 'answer' },
    ]);
  });

  it('keeps a refusal', () => {
    expect(decode(completion({ content: null, refusal: 'No.' }, 'content_filter'))).toMatchObject({
      parts: [{ type: 'refusal', text: 'No.' }],
      finish: { unified: 'content_filter', raw: 'content_filter' },
    });
  });

  it.each([
    ['stop', false, 'stop'],
    ['length', false, 'length'],
    ['function_call', false, 'tool_calls'],
    ['content_filter', false, 'content_filter'],
    ['stop', true, 'tool_calls'],
    ['something_new', false, 'other'],
    [null, false, 'other'],
    ['insufficient_system_resource', false, 'error'],
  ])('finish_reason %s (tool calls: %s) → %s, raw kept', (raw, withCall, unified) => {
    const message = withCall
      ? { content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }] }
      : { content: 'x' };
    expect(decode(completion(message, raw)).finish).toEqual({ unified, raw });
  });

  it('normalizes usage (deepseek cache field, no usage at all)', () => {
    expect(
      decode(
        completion({ content: 'x' }, 'stop', {
          usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110, prompt_cache_hit_tokens: 60 },
        }),
      ).usage,
    ).toEqual({ inputTokens: 40, cacheReadTokens: 60, cacheWriteTokens: 0, outputTokens: 10, reasoningTokens: 0 });
    expect(decode(completion({ content: 'x' })).usage).toEqual({
      inputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
    });
  });

  it.each([
    ['an error body answered with 200', { error: { message: 'model overloaded' } }, 'model overloaded'],
    ['no choices', { id: 'x', choices: [] }, 'the upstream answer has no choices'],
    ['not a completion at all', 'garbage', 'the upstream answer is not a chat completion'],
  ])('throws an upstream error on %s', (_name, body, message) => {
    expect(() => decode(body)).toThrow(expect.objectContaining({ kind: 'upstream_error', message }) as GatewayError);
  });
});

function frames(...chunks: unknown[]): string {
  return chunks.map((chunk) => `data: ${typeof chunk === 'string' ? chunk : JSON.stringify(chunk)}\n\n`).join('');
}

function chunk(delta: Record<string, unknown>, finish: string | null = null, index = 0): Record<string, unknown> {
  return { id: 'chatcmpl-s', model: 'm', choices: [{ index, delta, finish_reason: finish }] };
}

function decodeStream(text: string, toolNames: Record<string, string> = {}): IrStreamEvent[] {
  const decoder = chatCodec.upstream.createStreamDecoder(testContext(toolNames));
  return [...decoder.push(text), ...decoder.end()];
}

describe('chat stream decoder', () => {
  it('opens one block per kind change and closes it before the next', () => {
    const events = decodeStream(
      frames(
        chunk({ role: 'assistant', reasoning_content: 'r' }),
        chunk({ content: 'a' }),
        chunk({ content: 'b' }),
        chunk({ refusal: 'no' }),
        chunk({}, 'stop'),
        '[DONE]',
      ),
    );
    expect(streamContractViolations(events)).toEqual([]);
    expect(events).toEqual([
      { type: 'start', id: 'chatcmpl-s', model: 'm' },
      { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'r' },
      { type: 'block_end', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'text' } },
      { type: 'text_delta', index: 1, text: 'a' },
      { type: 'text_delta', index: 1, text: 'b' },
      { type: 'block_end', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'refusal' } },
      { type: 'refusal_delta', index: 2, text: 'no' },
      { type: 'block_end', index: 2 },
      { type: 'finish', finish: { unified: 'stop', raw: 'stop' } },
    ]);
  });

  it('keys tool calls by index, restores names, and treats a new id on a reused index as a new call', () => {
    const events = decodeStream(
      frames(
        chunk({ tool_calls: [{ index: 0, id: 'a', type: 'function', function: { name: 'safe_name', arguments: '' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '{"x":' } }] }),
        chunk({ tool_calls: [{ index: 0, function: { arguments: '1}' } }] }),
        chunk({ tool_calls: [{ index: 1, id: 'b', type: 'function', function: { name: 'second', arguments: '{}' } }] }),
        // mistral: no index at all, every call at array position 0, told apart by id.
        chunk({ tool_calls: [{ id: 'c', function: { name: 'third', arguments: '{"y":2}' } }] }),
        chunk({ tool_calls: [{ id: 'd', function: { name: 'fourth', arguments: '{}' } }] }),
        chunk({}, 'tool_calls'),
        { id: 'chatcmpl-s', choices: [], usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 } },
        '[DONE]',
      ),
      { safe_name: 'original.name' },
    );
    expect(streamContractViolations(events)).toEqual([]);
    const { response, finish } = accumulateIrEvents(events);
    expect(response.parts).toEqual([
      { type: 'tool_call', id: 'a', name: 'original.name', argumentsJson: '{"x":1}' },
      { type: 'tool_call', id: 'b', name: 'second', argumentsJson: '{}' },
      { type: 'tool_call', id: 'c', name: 'third', argumentsJson: '{"y":2}' },
      { type: 'tool_call', id: 'd', name: 'fourth', argumentsJson: '{}' },
    ]);
    expect(finish).toEqual({ unified: 'tool_calls', raw: 'tool_calls' });
    expect(response.usage.outputTokens).toBe(4);
    expect(events[events.length - 1]).toEqual({
      type: 'usage',
      usage: { inputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 4, reasoningTokens: 0 },
    });
  });

  it('reports tool_calls when a vendor says stop after calling a tool', () => {
    const events = decodeStream(
      frames(chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] }), chunk({}, 'stop'), '[DONE]'),
    );
    expect(accumulateIrEvents(events).finish).toEqual({ unified: 'tool_calls', raw: 'stop' });
  });

  it('follows choice 0 only and ignores content after the finish', () => {
    const events = decodeStream(
      frames(
        chunk({ content: 'mine' }),
        chunk({ content: 'other choice' }, null, 1),
        chunk({}, 'stop'),
        chunk({ content: 'late' }),
        '[DONE]',
      ),
    );
    const text = accumulateIrEvents(events).response.parts;
    expect(text).toEqual([{ type: 'text', text: 'mine' }]);
  });

  it('skips keepalive comments and accepts CRLF line ends', () => {
    const text = `: keepalive\r\n\r\ndata: ${JSON.stringify(chunk({ content: 'x' }))}\r\n\r\n: ping\r\n\r\ndata: ${JSON.stringify(chunk({}, 'stop'))}\r\n\r\ndata: [DONE]\r\n\r\n`;
    expect(accumulateIrEvents(decodeStream(text))).toMatchObject({
      response: { parts: [{ type: 'text', text: 'x' }] },
      finish: { unified: 'stop' },
      errors: [],
    });
  });

  it('ends cleanly on [DONE] without a finish_reason, but never calls it stop', () => {
    const events = decodeStream(frames(chunk({ content: 'x' }), '[DONE]'));
    expect(accumulateIrEvents(events).finish).toEqual({ unified: 'other', raw: null });
    expect(events.some((event) => event.type === 'error')).toBe(false);
  });

  it.each([
    [
      'an error frame',
      frames(chunk({ content: 'x' }), { error: { message: 'Internal error', type: 'server_error' } }, '[DONE]'),
      'Internal error',
    ],
    ['an unreadable chunk', frames(chunk({ content: 'x' }), '{not json'), 'the upstream sent an unreadable stream chunk'],
    ['a connection closed before [DONE]', frames(chunk({ content: 'x' }), chunk({}, 'stop')), 'the upstream stream ended before [DONE]'],
    ['nothing at all', '', 'the upstream stream ended before [DONE]'],
  ])('yields one error event, and nothing after it, on %s', (_name, text, message) => {
    const events = decodeStream(text);
    const errors = events.filter((event) => event.type === 'error');
    expect(errors).toHaveLength(1);
    expect(events[events.length - 1]).toEqual({ type: 'error', error: expect.objectContaining({ kind: 'upstream_error', message }) });
  });
});

describe('chat pass-through meter', () => {
  it('flags an error frame, a cut stream and an error body', () => {
    const streamMeter = (text: string) => {
      const meter = chatCodec.createPassThroughMeter(true);
      meter.push(text);
      return meter.end();
    };
    expect(streamMeter(frames(chunk({ content: 'x' }), { error: { message: 'boom' } })).error).toBe(true);
    expect(streamMeter(frames(chunk({ content: 'x' }), chunk({}, 'stop')))).toMatchObject({ error: true, finish: { unified: 'stop' } });
    expect(streamMeter(frames(chunk({ content: 'x' }), chunk({}, 'length'), '[DONE]'))).toMatchObject({
      error: false,
      finish: { unified: 'length', raw: 'length' },
    });
    const bodyMeter = chatCodec.createPassThroughMeter(false);
    bodyMeter.push(JSON.stringify({ error: { message: 'x' } }));
    expect(bodyMeter.end()).toEqual({
      usage: { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 },
      finish: null,
      error: true,
    });
  });
});
