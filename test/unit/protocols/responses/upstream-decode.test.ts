/** Upstream side beyond the captures: stream edge cases, failed bodies, error decoding, metering. */
import { GatewayError } from '../../../../src/errors/gateway-error';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { responsesCodec } from '../../../../src/protocols/responses';
import { collectIrStream, decodeContext, seededRandom, splitBytesRandomly } from '../../../support/sdk-responses';

const upstream = responsesCodec.upstream;

function sse(events: Array<Record<string, unknown>>, lineEnd = '\n'): string {
  return events.map((event) => `event: ${String(event.type)}${lineEnd}data: ${JSON.stringify(event)}${lineEnd}${lineEnd}`).join('');
}

function decode(text: string | string[], toolNames: Record<string, string> = {}): IrStreamEvent[] {
  const decoder = upstream.createStreamDecoder(decodeContext(toolNames));
  const pieces = typeof text === 'string' ? [text] : text;
  return [...pieces.flatMap((piece) => decoder.push(piece)), ...decoder.end()];
}

const CREATED = { type: 'response.created', response: { id: 'resp_up', model: 'gpt-up', status: 'in_progress', output: [] } };
const usage = {
  input_tokens: 10,
  input_tokens_details: { cached_tokens: 4 },
  output_tokens: 7,
  output_tokens_details: { reasoning_tokens: 3 },
};
const completed = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: 'response.completed',
  response: { id: 'resp_up', status: 'completed', output: [], usage, ...extra },
});
const NORMALIZED = { inputTokens: 6, cacheReadTokens: 4, cacheWriteTokens: 0, outputTokens: 7, reasoningTokens: 3 };

describe('Responses stream decoder edge cases', () => {
  it('emits values sent only in .done events as one delta each', () => {
    const events = decode(
      sse([
        CREATED,
        { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary: [] } },
        { type: 'response.reasoning_summary_part.added', output_index: 0, summary_index: 0, part: { type: 'summary_text', text: '' } },
        { type: 'response.reasoning_summary_text.done', output_index: 0, summary_index: 0, text: 'thought' },
        {
          type: 'response.output_item.done',
          output_index: 0,
          item: { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'thought' }], encrypted_content: 'enc' },
        },
        { type: 'response.output_item.added', output_index: 1, item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] } },
        { type: 'response.content_part.added', output_index: 1, content_index: 0, part: { type: 'output_text', text: '' } },
        { type: 'response.output_text.done', output_index: 1, content_index: 0, text: 'Hello' },
        { type: 'response.content_part.done', output_index: 1, content_index: 0, part: { type: 'output_text', text: 'Hello' } },
        {
          type: 'response.output_item.done',
          output_index: 1,
          item: { type: 'message', id: 'msg_1', content: [{ type: 'output_text', text: 'Hello' }] },
        },
        {
          type: 'response.output_item.added',
          output_index: 2,
          item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '' },
        },
        { type: 'response.function_call_arguments.done', output_index: 2, arguments: '{"a":1}' },
        {
          type: 'response.output_item.done',
          output_index: 2,
          item: { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"a":1}' },
        },
        completed(),
      ]),
      { get_weather: 'get.weather' },
    );
    const collected = collectIrStream(events);
    expect(collected.parts).toEqual([
      {
        type: 'reasoning',
        text: 'thought',
        itemId: { origin: 'responses', value: 'rs_1' },
        encrypted: { origin: 'responses', value: 'enc' },
      },
      { type: 'text', text: 'Hello' },
      { type: 'tool_call', id: 'call_1', name: 'get.weather', argumentsJson: '{"a":1}' },
    ]);
    expect(collected.finish).toEqual({ unified: 'tool_calls', raw: 'completed' });
    expect(collected.usage).toEqual(NORMALIZED);
    expect(events.filter((event) => event.type === 'text_delta')).toHaveLength(1);
  });

  it('joins several summary parts with a blank line and opens blocks for deltas that skipped their part event', () => {
    const collected = collectIrStream(
      decode(
        sse([
          CREATED,
          { type: 'response.output_item.added', output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary: [] } },
          { type: 'response.reasoning_summary_part.added', output_index: 0, summary_index: 0 },
          { type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 0, delta: 'one' },
          { type: 'response.reasoning_summary_part.added', output_index: 0, summary_index: 1 },
          { type: 'response.reasoning_summary_text.delta', output_index: 0, summary_index: 1, delta: 'two' },
          { type: 'response.output_item.done', output_index: 0, item: { type: 'reasoning', id: 'rs_1', summary: [] } },
          { type: 'response.output_item.added', output_index: 1, item: { type: 'message', id: 'msg_1', content: [] } },
          { type: 'response.output_text.delta', item_id: 'msg_1', content_index: 0, delta: 'Hi' },
          {
            type: 'response.output_item.done',
            output_index: 1,
            item: { type: 'message', id: 'msg_1', content: [{ type: 'output_text', text: 'Hi' }] },
          },
          completed(),
        ]),
      ),
    );
    expect(collected.parts.map((part) => (part.type === 'reasoning' || part.type === 'text' ? part.text : part.type))).toEqual([
      'one\n\ntwo',
      'Hi',
    ]);
  });

  it('emits an item that came only whole (no part events)', () => {
    const collected = collectIrStream(
      decode(
        sse([
          CREATED,
          {
            type: 'response.output_item.done',
            output_index: 0,
            item: {
              type: 'message',
              content: [
                { type: 'output_text', text: 'whole' },
                { type: 'refusal', refusal: 'no' },
              ],
            },
          },
          { type: 'response.output_item.done', output_index: 1, item: { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' } },
          { type: 'response.output_item.added', output_index: 2, item: { type: 'file_search_call', id: 'fs_1' } },
          { type: 'response.output_item.done', output_index: 2, item: { type: 'file_search_call', id: 'fs_1', status: 'completed' } },
          completed(),
        ]),
      ),
    );
    expect(collected.parts).toEqual([
      { type: 'text', text: 'whole' },
      { type: 'refusal', text: 'no' },
      { type: 'tool_call', id: 'c', name: 'f', argumentsJson: '{}' },
      { type: 'native', protocol: 'responses', value: { type: 'file_search_call', id: 'fs_1', status: 'completed' } },
    ]);
    expect(collected.finish?.unified).toBe('tool_calls');
  });

  it('streams refusals', () => {
    const collected = collectIrStream(
      decode(
        sse([
          CREATED,
          { type: 'response.output_item.added', output_index: 0, item: { type: 'message', id: 'm', content: [] } },
          { type: 'response.content_part.added', output_index: 0, content_index: 0, part: { type: 'refusal', refusal: '' } },
          { type: 'response.refusal.delta', output_index: 0, content_index: 0, delta: 'Sorry' },
          { type: 'response.refusal.done', output_index: 0, content_index: 0, refusal: 'Sorry' },
          { type: 'response.content_part.done', output_index: 0, content_index: 0, part: { type: 'refusal', refusal: 'Sorry' } },
          {
            type: 'response.output_item.done',
            output_index: 0,
            item: { type: 'message', id: 'm', content: [{ type: 'refusal', refusal: 'Sorry' }] },
          },
          completed(),
        ]),
      ),
    );
    expect(collected.parts).toEqual([{ type: 'refusal', text: 'Sorry' }]);
  });

  it.each<[string, Record<string, unknown>, string, string | null]>([
    ['max_output_tokens', { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }, 'length', 'max_output_tokens'],
    ['content_filter', { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }, 'content_filter', 'content_filter'],
  ])('maps response.incomplete %s', (_name, response, unified, raw) => {
    const collected = collectIrStream(decode(sse([CREATED, { type: 'response.incomplete', response: { ...response, usage } }])));
    expect(collected.finish).toEqual({ unified, raw });
    expect(collected.usage).toEqual(NORMALIZED);
  });

  it.each<[string, string, string, string]>([
    [
      'a cut stream',
      sse([CREATED, { type: 'response.output_item.added', output_index: 0, item: { type: 'message', content: [] } }]),
      'upstream_error',
      'ended before response.completed',
    ],
    [
      'response.failed',
      sse([CREATED, { type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'boom' } } }]),
      'upstream_error',
      'boom',
    ],
    [
      'an error event of the documented shape',
      sse([CREATED, { type: 'error', code: 'rate_limit_exceeded', message: 'slow', param: null }]),
      'rate_limit',
      'slow',
    ],
    [
      'an error event of the recorded shape',
      sse([CREATED, { type: 'error', error: { type: 'invalid_request_error', code: 'context_length_exceeded', message: 'too long' } }]),
      'invalid_request',
      'too long',
    ],
    ['a frame that is not JSON', `${sse([CREATED])}data: {oops\n\n`, 'upstream_error', 'not JSON'],
  ])('turns %s into one error event and no finish', (_name, text, kind, message) => {
    const events = decode(text);
    const collected = collectIrStream(events);
    expect(collected.finish).toBeUndefined();
    expect(collected.error).toBeInstanceOf(GatewayError);
    expect(collected.error?.kind).toBe(kind);
    expect(collected.error?.message).toContain(message);
    expect(events.filter((event) => event.type === 'error')).toHaveLength(1);
  });

  it('ignores what follows the terminal event, keepalive comments and CRLF framing', () => {
    const text = `: keepalive\r\n\r\n${sse([CREATED, completed()], '\r\n')}${sse([{ type: 'response.output_item.done', output_index: 0, item: { type: 'message', content: [{ type: 'output_text', text: 'late' }] } }])}`;
    for (const seed of [1, 2, 3]) {
      const collected = collectIrStream(decode(splitBytesRandomly(text, seededRandom(seed), 5)));
      expect(collected).toEqual({
        id: 'resp_up',
        model: 'gpt-up',
        parts: [],
        finish: { unified: 'stop', raw: 'completed' },
        usage: NORMALIZED,
      });
    }
  });

  it('synthesizes the start when the upstream skips response.created', () => {
    const collected = collectIrStream(decode(sse([completed()])));
    expect(collected.id).toBe('resp_up');
    const noResponse = collectIrStream(decode(sse([{ type: 'response.output_text.delta', output_index: 0, delta: 'x' }, completed()])));
    expect(noResponse.id).toBe('resp_1');
    expect(noResponse.parts).toEqual([{ type: 'text', text: 'x' }]);
  });
});

describe('Responses decodeResponse edge cases', () => {
  it('reads raw reasoning text when there is no summary, and restores tool names', () => {
    const decoded = upstream.decodeResponse(
      {
        id: 'r',
        model: 'm',
        status: 'completed',
        created_at: 5,
        usage,
        output: [
          { type: 'reasoning', id: 'rs', summary: [], content: [{ type: 'reasoning_text', text: 'raw' }] },
          { type: 'function_call', call_id: 'c', name: 'a_b', arguments: '{}' },
        ],
      },
      decodeContext({ a_b: 'a.b' }),
    );
    expect(decoded).toEqual({
      id: 'r',
      model: 'm',
      created: 5,
      usage: NORMALIZED,
      finish: { unified: 'tool_calls', raw: 'completed' },
      parts: [
        { type: 'reasoning', text: 'raw', itemId: { origin: 'responses', value: 'rs' } },
        { type: 'tool_call', id: 'c', name: 'a.b', argumentsJson: '{}' },
      ],
    });
  });

  it.each<[string, unknown, string]>([
    [
      'a failed response',
      { id: 'r', status: 'failed', error: { code: 'server_error', message: 'model crashed' }, output: [] },
      'model crashed',
    ],
    ['an error envelope', { error: { message: 'bad key', type: 'invalid_request_error' } }, 'bad key'],
    ['a body that is not an object', 'nope', 'not a response object'],
  ])('throws for %s instead of a clean answer', (_name, body, message) => {
    expect(() => upstream.decodeResponse(body, decodeContext())).toThrow(message);
  });
});

describe('Responses decodeError', () => {
  it.each<[number, string, Record<string, string | string[] | undefined>, Record<string, unknown>]>([
    [
      400,
      JSON.stringify({ error: { message: 'Invalid schema', type: 'invalid_request_error', param: 'tools[0]', code: null } }),
      {},
      { kind: 'invalid_request', status: 400, message: 'Invalid schema', param: 'tools[0]' },
    ],
    [
      401,
      JSON.stringify({ error: { message: 'Incorrect API key' } }),
      {},
      { kind: 'upstream_error', status: 502, message: 'Incorrect API key', param: undefined },
    ],
    [
      429,
      JSON.stringify({ error: { message: 'Rate limit reached. Please try again in 1.5s.' } }),
      {},
      { kind: 'rate_limit', status: 429, retryAfterSeconds: 1.5 },
    ],
    [
      429,
      JSON.stringify({ error: { message: 'Please try again in 120ms.' } }),
      { 'Retry-After-Ms': ['250'] },
      { kind: 'rate_limit', retryAfterSeconds: 0.25 },
    ],
    [
      429,
      JSON.stringify({ error: { message: 'slow down' } }),
      { 'retry-after': 'Wed, 21 Oct 2015 07:28:00 GMT' },
      { kind: 'rate_limit', retryAfterSeconds: undefined },
    ],
    [
      503,
      'Service Unavailable',
      { 'retry-after': '3' },
      { kind: 'overloaded', status: 503, message: 'Service Unavailable', retryAfterSeconds: 3 },
    ],
    [529, '', {}, { kind: 'overloaded', status: 529, message: 'upstream answered HTTP 529' }],
    [500, JSON.stringify({ error: { message: 'oops' } }), {}, { kind: 'upstream_error', status: 502, message: 'oops' }],
  ])('HTTP %i', (status, body, headers, expected) => {
    const error = upstream.decodeError(status, body, headers);
    expect(error).toBeInstanceOf(GatewayError);
    expect(error).toMatchObject(expected);
    expect(error.upstream).toEqual({ status, body });
  });
});

describe('Responses pass-through meter', () => {
  it.each<[string, string, Record<string, unknown>]>([
    [
      'an incomplete stream answer',
      sse([
        CREATED,
        { type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage } },
      ]),
      { usage: NORMALIZED, finish: { unified: 'length', raw: 'max_output_tokens' }, error: false },
    ],
    [
      'a stream with a function call',
      sse([
        CREATED,
        { type: 'response.output_item.added', output_index: 0, item: { type: 'function_call', call_id: 'c', name: 'f' } },
        completed(),
      ]),
      { usage: NORMALIZED, finish: { unified: 'tool_calls', raw: 'completed' }, error: false },
    ],
    [
      'a failed stream',
      sse([CREATED, { type: 'response.failed', response: { status: 'failed', usage } }]),
      { usage: NORMALIZED, finish: { unified: 'error', raw: 'failed' }, error: true },
    ],
    ['a stream cut before its terminal event', sse([CREATED]), { finish: null, error: true }],
  ])('reads %s', (_name, text, expected) => {
    const meter = responsesCodec.createPassThroughMeter(true);
    for (const piece of splitBytesRandomly(text, seededRandom(4), 3)) meter.push(piece);
    expect(meter.end()).toMatchObject(expected);
  });

  it.each<[string, string, Record<string, unknown>]>([
    [
      'an incomplete body',
      JSON.stringify({ object: 'response', status: 'incomplete', incomplete_details: { reason: 'content_filter' }, output: [], usage }),
      { usage: NORMALIZED, finish: { unified: 'content_filter', raw: 'content_filter' }, error: false },
    ],
    ['a body that is not JSON', '<html>', { finish: null, error: true }],
  ])('reads %s', (_name, body, expected) => {
    const meter = responsesCodec.createPassThroughMeter(false);
    meter.push(body);
    expect(meter.end()).toMatchObject(expected);
  });
});
