/**
 * The stream encoder judged by the official SDK: its frames, served through a fake fetch to
 * `messages.stream(...).finalMessage()`, must parse without error and equal what `encodeResponse`
 * renders for the same answer; the frame sequence keeps the invariants the SDK relies on; `fail`
 * and upstream `error` events make the SDK throw the way the real API's `event: error` does.
 */
import { GatewayError } from '../../../../src/errors/gateway-error';
import type { ContentPart } from '../../../../src/ir/parts';
import type { IrResponse } from '../../../../src/ir/response';
import type { IrStreamEvent, StreamBlock } from '../../../../src/ir/stream-event';
import { messagesCodec } from '../../../../src/protocols/messages';
import { SseParser } from '../../../../src/protocols/shared/sse-parser';
import { Anthropic, sdkError, sdkFinalMessage } from '../../../support/sdk-messages';
import { HAVE_CAPTURES, assembleStream, captureNames, decodeContext, readCaptureSse, testContext } from './helpers';

const inbound = messagesCodec.inbound;
const OPTIONS = { model: 'claude-sonnet-4-5' };

function pieces(text: string, count = 3): string[] {
  const size = Math.max(1, Math.ceil(text.length / count));
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function blockOf(part: ContentPart): StreamBlock {
  switch (part.type) {
    case 'text':
      return { kind: 'text' };
    case 'refusal':
      return { kind: 'refusal' };
    case 'reasoning':
      return { kind: 'reasoning', ...(part.itemId ? { itemId: part.itemId } : {}) };
    case 'tool_call':
      return { kind: 'tool_call', id: part.id, name: part.name, ...(part.signature ? { signature: part.signature } : {}) };
    case 'native':
      return { kind: 'native', part };
    default:
      throw new Error(`no stream block for ${part.type}`);
  }
}

/** The stream a decoder would produce for `response`; `usageLast` mimics Chat (usage after finish). */
function eventsFor(response: IrResponse, usageLast = false): IrStreamEvent[] {
  const events: IrStreamEvent[] = [
    { type: 'start', id: response.id, model: response.model, usage: { inputTokens: response.usage.inputTokens } },
  ];
  response.parts.forEach((part, index) => {
    events.push({ type: 'block_start', index, block: blockOf(part) });
    if (part.type === 'text') for (const text of pieces(part.text)) events.push({ type: 'text_delta', index, text });
    if (part.type === 'refusal') for (const text of pieces(part.text)) events.push({ type: 'refusal_delta', index, text });
    if (part.type === 'tool_call') for (const json of pieces(part.argumentsJson)) events.push({ type: 'tool_args_delta', index, json });
    if (part.type === 'reasoning') {
      for (const text of pieces(part.text)) events.push({ type: 'reasoning_delta', index, text });
      if (part.redacted) events.push({ type: 'reasoning_opaque', index, field: 'redacted', value: part.redacted });
      if (part.encrypted) events.push({ type: 'reasoning_opaque', index, field: 'encrypted', value: part.encrypted });
      if (part.signature) events.push({ type: 'reasoning_opaque', index, field: 'signature', value: part.signature });
    }
    events.push({ type: 'block_end', index });
  });
  const usage: IrStreamEvent = { type: 'usage', usage: response.usage };
  const finish: IrStreamEvent = { type: 'finish', finish: response.finish };
  events.push(...(usageLast ? [finish, usage] : [usage, finish]));
  return events;
}

/** The SDK's message as plain JSON, without the `parsed_output` its structured-output helper adds. */
function plain(message: unknown): unknown {
  const { parsed_output: _parsed, ...rest } = JSON.parse(JSON.stringify(message)) as Record<string, unknown>;
  return rest;
}

function encodeStream(events: readonly IrStreamEvent[]): string[] {
  const encoder = inbound.createStreamEncoder(OPTIONS, testContext());
  return [...events.flatMap((event) => encoder.push(event)), ...encoder.end()];
}

/** The invariants of PROTOCOLS.md 4.2 checked on the wire frames themselves. */
function checkSequence(frames: readonly string[]): void {
  const parsed = new SseParser().push(frames.join(''));
  for (const frame of parsed) expect((JSON.parse(frame.data) as { type: string }).type).toBe(frame.event);
  const names = parsed.map((frame) => frame.event);
  expect(names[0]).toBe('message_start');
  expect(names.filter((name) => name === 'message_start')).toHaveLength(1);
  expect(names.slice(-2)).toEqual(['message_delta', 'message_stop']);
  let open: number | undefined;
  let next = 0;
  for (const frame of parsed) {
    const data = JSON.parse(frame.data) as { index?: number };
    if (frame.event === 'content_block_start') {
      expect(open).toBeUndefined();
      expect(data.index).toBe(next++);
      open = data.index;
    } else if (frame.event === 'content_block_delta') {
      expect(data.index).toBe(open);
    } else if (frame.event === 'content_block_stop') {
      expect(data.index).toBe(open);
      open = undefined;
    }
  }
  expect(open).toBeUndefined();
}

const USAGE = { inputTokens: 20, cacheReadTokens: 5, cacheWriteTokens: 3, outputTokens: 40, reasoningTokens: 10 };

const CASES: Array<[string, IrResponse]> = [
  [
    'text from a Chat upstream (usage after finish)',
    {
      id: 'chatcmpl-1',
      model: 'gpt-4.1',
      parts: [{ type: 'text', text: 'Hello there, how can I help?' }],
      finish: { unified: 'stop', raw: 'stop' },
      usage: USAGE,
    },
  ],
  [
    'signed thinking, text and two tool calls (one without arguments)',
    {
      id: 'msg_01abc',
      model: 'claude',
      parts: [
        { type: 'reasoning', text: 'Let me think about the weather.', signature: { origin: 'messages', value: 'EqQBCkYIBRgCIkB' } },
        { type: 'text', text: 'Checking two things.' },
        { type: 'tool_call', id: 'toolu_01', name: 'get_weather', argumentsJson: '{"city":"Paris","units":"metric"}' },
        { type: 'tool_call', id: 'toolu_02', name: 'refresh', argumentsJson: '' },
      ],
      finish: { unified: 'tool_calls', raw: 'tool_use' },
      usage: USAGE,
    },
  ],
  [
    'Generate-Content thought signatures on a thought and a call (packed for the client)',
    {
      id: 'resp-gc-1',
      model: 'gemini-2.5-pro',
      parts: [
        { type: 'reasoning', text: 'Thinking in Gemini.', signature: { origin: 'generate-content', value: 'CiQBVKhc7/sig==' } },
        {
          type: 'tool_call',
          id: 'call.with.dots',
          name: 'lookup',
          argumentsJson: '{"q":"x"}',
          signature: { origin: 'generate-content', value: 'Cs0BAVSoXO+call==' },
        },
      ],
      finish: { unified: 'tool_calls', raw: 'STOP' },
      usage: USAGE,
    },
  ],
  [
    'Responses encrypted reasoning with an item id and no summary text',
    {
      id: 'resp_1',
      model: 'gpt-5',
      parts: [
        {
          type: 'reasoning',
          text: '',
          encrypted: { origin: 'responses', value: 'gAAAAB-encrypted' },
          itemId: { origin: 'responses', value: 'rs_123' },
        },
        { type: 'text', text: 'Done.' },
      ],
      finish: { unified: 'stop', raw: 'completed' },
      usage: USAGE,
    },
  ],
  [
    'redacted thinking',
    {
      id: 'msg_02',
      model: 'claude',
      parts: [
        { type: 'reasoning', text: '', redacted: { origin: 'messages', value: 'EmwKAhgBEgy3va' } },
        { type: 'text', text: 'Answer.' },
      ],
      finish: { unified: 'stop', raw: 'end_turn' },
      usage: USAGE,
    },
  ],
  [
    'a refusal, an empty text block and a stop sequence',
    {
      id: 'chatcmpl-2',
      model: 'gpt-4.1',
      parts: [
        { type: 'text', text: '' },
        { type: 'refusal', text: 'I cannot help with that.' },
      ],
      finish: { unified: 'stop_sequence', raw: 'stop', stopSequence: '###' },
      usage: USAGE,
    },
  ],
  [
    "Messages server-tool blocks kept, another protocol's native block skipped",
    {
      id: 'msg_03',
      model: 'claude',
      parts: [
        {
          type: 'native',
          protocol: 'messages',
          value: { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'news' } },
        },
        { type: 'native', protocol: 'responses', value: { type: 'web_search_call', id: 'ws_1', status: 'completed' } },
        {
          type: 'native',
          protocol: 'messages',
          value: {
            type: 'web_search_tool_result',
            tool_use_id: 'srvtoolu_1',
            content: [{ type: 'web_search_result', url: 'https://a.example', title: 'A' }],
          },
        },
        { type: 'text', text: 'Here is the news.' },
      ],
      finish: { unified: 'length', raw: 'MAX_TOKENS' },
      usage: USAGE,
    },
  ],
  [
    'no content at all',
    {
      id: 'chatcmpl-3',
      model: 'gpt-4.1',
      parts: [],
      finish: { unified: 'content_filter', raw: 'content_filter' },
      usage: USAGE,
    },
  ],
];

describe('Messages stream encoder', () => {
  describe.each(CASES)('%s', (_name, response) => {
    it.each([false, true])('matches encodeResponse through the official SDK accumulator (usage last: %s)', async (usageLast) => {
      const frames = encodeStream(eventsFor(response, usageLast));
      checkSequence(frames);
      const message = await sdkFinalMessage(frames);
      const expected = inbound.encodeResponse(response, OPTIONS, testContext());
      expect(plain(message)).toEqual(expected);
    });
  });

  it('writes the exact native frames, with one empty input_json_delta for a call without arguments', () => {
    const frames = encodeStream(
      eventsFor(
        {
          id: 'chatcmpl-9',
          model: 'gpt-4.1',
          parts: [
            { type: 'text', text: 'Hi' },
            { type: 'tool_call', id: 'call_1', name: 'refresh', argumentsJson: '' },
          ],
          finish: { unified: 'tool_calls', raw: 'tool_calls' },
          usage: { inputTokens: 7, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 3, reasoningTokens: 0 },
        },
        true,
      ),
    );
    expect(frames).toEqual([
      'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_test1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":7,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"H"}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"i"}}\n\n',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
      'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"call_1","name":"refresh","input":{}}}\n\n',
      'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}\n\n',
      'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n',
      'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":7,"output_tokens":3,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}\n\n',
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    ]);
  });

  it('renders ids and usage the interface requires', () => {
    const body = inbound.encodeResponse(CASES[0][1], OPTIONS, testContext());
    expect(body).toMatchObject({
      id: 'msg_test1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      stop_reason: 'end_turn',
      usage: { input_tokens: 20, output_tokens: 40, cache_read_input_tokens: 5, cache_creation_input_tokens: 3 },
    });
  });

  it("packs other-origin opaque values into the tool id and thinking signature, and the client's next request gives them back", () => {
    const response = CASES[2][1];
    const body = inbound.encodeResponse(response, OPTIONS, testContext());
    const content = body.content as Array<Record<string, unknown>>;
    expect(String(content[1].id)).toMatch(/^[a-zA-Z0-9_-]+$/);
    const followUp = {
      model: 'gemini-2.5-pro',
      max_tokens: 100,
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: content[1].id, content: 'result' }] },
      ],
    };
    const decoded = inbound.decodeRequest(followUp, testContext()).request;
    expect(decoded.turns[1].parts).toEqual(response.parts);
    expect(decoded.turns[2].parts).toEqual([
      { type: 'tool_result', callId: 'call.with.dots', name: 'lookup', content: [{ type: 'text', text: 'result' }] },
    ]);
  });

  it("gives back Responses encrypted reasoning and item id from the client's thinking block", () => {
    const response = CASES[3][1];
    const body = inbound.encodeResponse(response, OPTIONS, testContext());
    const decoded = inbound.decodeRequest(
      {
        model: 'gpt-5',
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'hi' },
          { role: 'assistant', content: body.content },
        ],
      },
      testContext(),
    ).request;
    expect(decoded.turns[1].parts).toEqual(response.parts);
  });

  it('starts the message itself when the first event is not `start`, and reports the final input tokens in message_delta', async () => {
    const encoder = inbound.createStreamEncoder(OPTIONS, testContext());
    const frames = [
      ...encoder.push({ type: 'block_start', index: 0, block: { kind: 'text' } }),
      ...encoder.push({ type: 'text_delta', index: 0, text: 'hi' }),
      ...encoder.push({ type: 'block_end', index: 0 }),
      ...encoder.push({ type: 'finish', finish: { unified: 'stop', raw: 'STOP' } }),
      ...encoder.push({ type: 'usage', usage: USAGE }),
      ...encoder.end(),
    ];
    checkSequence(frames);
    const message = await sdkFinalMessage(frames);
    expect(message.id).toBe('msg_test1');
    expect(message.usage).toMatchObject({ input_tokens: 20, output_tokens: 40 });
  });

  it('closes a block the upstream left open before the final events', async () => {
    const encoder = inbound.createStreamEncoder(OPTIONS, testContext());
    const frames = [
      ...encoder.push({ type: 'start', id: 'x', model: 'm' }),
      ...encoder.push({ type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'call_1', name: 'f' } }),
      ...encoder.push({ type: 'tool_args_delta', index: 0, json: '{"a":1}' }),
      ...encoder.push({ type: 'block_start', index: 1, block: { kind: 'text' } }),
      ...encoder.push({ type: 'text_delta', index: 1, text: 'after' }),
      ...encoder.push({ type: 'finish', finish: { unified: 'tool_calls', raw: 'tool_calls' } }),
      ...encoder.end(),
    ];
    checkSequence(frames);
    const message = await sdkFinalMessage(frames);
    expect(message.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'f', input: { a: 1 } },
      { type: 'text', text: 'after' },
    ]);
  });

  describe('mid-stream errors', () => {
    const started: IrStreamEvent[] = [
      { type: 'start', id: 'msg_1', model: 'm' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'partial' },
    ];

    async function thrownBy(frames: string[]): Promise<unknown> {
      return sdkError({ body: frames.join('') }, true);
    }

    it('renders `event: error` that makes the SDK throw an APIError with the error type and message', async () => {
      const encoder = inbound.createStreamEncoder(OPTIONS, testContext());
      const frames = [
        ...started.flatMap((event) => encoder.push(event)),
        ...encoder.fail(new GatewayError('overloaded', 'upstream overloaded', { status: 529 })),
      ];
      expect(frames.at(-1)).toBe(
        'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"upstream overloaded"}}\n\n',
      );
      expect(encoder.end()).toEqual([]);
      expect(encoder.push({ type: 'finish', finish: { unified: 'stop', raw: null } })).toEqual([]);
      const error = await thrownBy(frames);
      expect(error).toBeInstanceOf(Anthropic.APIError);
      expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe('overloaded_error');
      expect((error as Error).message).toContain('upstream overloaded');
    });

    it('turns an upstream `error` event into the error frame', async () => {
      const encoder = inbound.createStreamEncoder(OPTIONS, testContext());
      const frames = [...started, { type: 'error', error: new GatewayError('rate_limit', 'slow down') } as IrStreamEvent].flatMap((event) =>
        encoder.push(event),
      );
      expect(encoder.end()).toEqual([]);
      const error = await thrownBy(frames);
      expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe('rate_limit_error');
    });

    it('never invents a finish: a stream that ends without one ends with the error frame', async () => {
      const encoder = inbound.createStreamEncoder(OPTIONS, testContext());
      const frames = [...started.flatMap((event) => encoder.push(event)), ...encoder.end()];
      expect(frames.join('')).not.toContain('message_stop');
      const error = await thrownBy(frames);
      expect((error as InstanceType<typeof Anthropic.APIError>).type).toBe('api_error');
    });

    it('fails before any byte with just the error frame', async () => {
      const encoder = inbound.createStreamEncoder(OPTIONS, testContext());
      const frames = encoder.fail(new GatewayError('timeout', 'too slow'));
      expect(frames).toHaveLength(1);
      expect(await thrownBy(frames)).toBeInstanceOf(Anthropic.APIError);
    });
  });

  (HAVE_CAPTURES ? describe : describe.skip)('real captures decoded to IR and encoded again', () => {
    it.each(captureNames('.chunks.txt'))('%s survives the round trip through the SDK accumulator', async (name) => {
      const decoder = messagesCodec.upstream.createStreamDecoder(decodeContext());
      const events = [...decoder.push(readCaptureSse(name)), ...decoder.end()];
      const frames = encodeStream(events);
      checkSequence(frames);
      const message = await sdkFinalMessage(frames);
      const assembled = assembleStream(events);
      const response: IrResponse = {
        id: assembled.id ?? '',
        model: assembled.model ?? '',
        parts: assembled.parts,
        finish: assembled.finish ?? { unified: 'other', raw: null },
        usage: assembled.usage ?? USAGE,
      };
      expect(plain(message)).toEqual(inbound.encodeResponse(response, OPTIONS, testContext()));
    });
  });
});
