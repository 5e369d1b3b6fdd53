/**
 * The stream encoder's frames, fed to the official OpenAI SDK's own stream accumulator, parse
 * without error and equal the non-streamed `encodeResponse` of the same answer; the SDK's deltas
 * rebuild every item; failures make the SDK throw as the real API does; error envelopes become the
 * SDK's error classes.
 */
import OpenAI from 'openai';
import { GatewayError, type ErrorKind } from '../../../../src/errors/gateway-error';
import type { IrResponse } from '../../../../src/ir/response';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { wrapOpaque } from '../../../../src/protocols/shared/wrap-opaque';
import type { InboundStreamOptions } from '../../../../src/protocols/codec';
import { responsesCodec } from '../../../../src/protocols/responses';
import { collectIrStream, deterministicContext, jsonResponse, sdkClient, sseResponse } from '../../../support/sdk-responses';

const inbound = responsesCodec.inbound;
const USAGE = { inputTokens: 100, cacheReadTokens: 20, cacheWriteTokens: 5, outputTokens: 50, reasoningTokens: 12 };

function text(index: number, ...deltas: string[]): IrStreamEvent[] {
  return [
    { type: 'block_start', index, block: { kind: 'text' } },
    ...deltas.map((delta): IrStreamEvent => ({ type: 'text_delta', index, text: delta })),
    { type: 'block_end', index },
  ];
}

function tool(index: number, id: string, name: string, ...deltas: string[]): IrStreamEvent[] {
  return [
    { type: 'block_start', index, block: { kind: 'tool_call', id, name } },
    ...deltas.map((json): IrStreamEvent => ({ type: 'tool_args_delta', index, json })),
    { type: 'block_end', index },
  ];
}

function ending(unified: 'stop' | 'tool_calls' | 'length' | 'content_filter', raw: string = unified): IrStreamEvent[] {
  // Usage after the finish, as Chat upstreams send it: the encoder must hold the terminal event.
  return [
    { type: 'finish', finish: { unified, raw } },
    { type: 'usage', usage: USAGE },
  ];
}

const START: IrStreamEvent = { type: 'start', id: 'up_1', model: 'upstream-model' };

interface Scenario {
  name: string;
  events: IrStreamEvent[];
  terminal: 'response.completed' | 'response.incomplete';
}

const SCENARIOS: Scenario[] = [
  { name: 'plain text', events: [START, ...text(0, 'Hel', 'lo ', 'wörld 👋'), ...ending('stop')], terminal: 'response.completed' },
  {
    name: 'thinking with a Messages signature, text, then two tool calls (one with a thought signature)',
    events: [
      START,
      { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'Let me ' },
      { type: 'reasoning_delta', index: 0, text: 'think.' },
      { type: 'reasoning_opaque', index: 0, field: 'signature', value: { origin: 'messages', value: 'sig-abc' } },
      { type: 'block_end', index: 0 },
      ...text(1, 'Calling tools.'),
      ...tool(2, 'toolu_1', 'get_weather', '{"city":', '"Paris"}'),
      {
        type: 'block_start',
        index: 3,
        block: { kind: 'tool_call', id: 'gc_2', name: 'lookup', signature: { origin: 'generate-content', value: 'thought-sig' } },
      },
      { type: 'tool_args_delta', index: 3, json: '{}' },
      { type: 'block_end', index: 3 },
      ...ending('tool_calls'),
    ],
    terminal: 'response.completed',
  },
  {
    name: 'Responses reasoning with its own item id and encrypted content, a server tool item, then text',
    events: [
      START,
      { type: 'block_start', index: 0, block: { kind: 'reasoning', itemId: { origin: 'responses', value: 'rs_up_9' } } },
      { type: 'reasoning_opaque', index: 0, field: 'encrypted', value: { origin: 'responses', value: 'gAAAAenc' } },
      { type: 'block_end', index: 0 },
      {
        type: 'block_start',
        index: 1,
        block: {
          kind: 'native',
          part: {
            type: 'native',
            protocol: 'responses',
            value: { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } },
          },
        },
      },
      { type: 'block_end', index: 1 },
      {
        type: 'block_start',
        index: 2,
        block: { kind: 'native', part: { type: 'native', protocol: 'messages', value: { type: 'server_tool_use' } } },
      },
      { type: 'block_end', index: 2 },
      ...text(3, 'Found it.'),
      ...ending('stop'),
    ],
    terminal: 'response.completed',
  },
  {
    name: 'two text blocks and a refusal share one message item',
    events: [
      START,
      ...text(0, 'A'),
      ...text(1, 'B'),
      { type: 'block_start', index: 2, block: { kind: 'refusal' } },
      { type: 'refusal_delta', index: 2, text: 'I cannot.' },
      { type: 'block_end', index: 2 },
      ...ending('stop'),
    ],
    terminal: 'response.completed',
  },
  {
    name: 'a tool call with no arguments',
    events: [START, ...tool(0, 'call_x', 'ping'), ...ending('tool_calls')],
    terminal: 'response.completed',
  },
  { name: 'max tokens', events: [START, ...text(0, 'Once upon'), ...ending('length', 'max_tokens')], terminal: 'response.incomplete' },
  { name: 'content filter', events: [START, ...text(0, 'Part'), ...ending('content_filter', 'SAFETY')], terminal: 'response.incomplete' },
  {
    name: 'a block left open by the upstream is closed before the terminal event',
    events: [
      START,
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'open' },
      { type: 'finish', finish: { unified: 'stop', raw: 'stop' } },
    ],
    terminal: 'response.completed',
  },
];

function irResponse(events: IrStreamEvent[]): IrResponse {
  const collected = collectIrStream(events.filter((event) => event.type !== 'finish'));
  const finish = events.find((event) => event.type === 'finish');
  const usage = [...events].reverse().find((event) => event.type === 'usage');
  return {
    id: collected.id ?? 'x',
    model: collected.model ?? 'x',
    parts: collected.parts,
    finish: finish?.type === 'finish' ? finish.finish : { unified: 'other', raw: null },
    usage:
      usage?.type === 'usage'
        ? usage.usage
        : { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 },
  };
}

function encodeFrames(events: IrStreamEvent[], options: InboundStreamOptions): string[] {
  const encoder = inbound.createStreamEncoder(options, deterministicContext());
  return [...events.flatMap((event) => encoder.push(event)), ...encoder.end(), ...encoder.end()];
}

/** Fields the SDK's parse helper adds to what the server sent. */
function withoutSdkFields(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSdkFields);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (key === 'output_parsed' || key === 'parsed_arguments' || key === 'parsed') continue;
    out[key] = withoutSdkFields(field);
  }
  return out;
}

interface StreamedEvent {
  type: string;
  sequence_number: number;
  output_index?: number;
  delta?: string;
  item?: Record<string, unknown>;
}

async function runSdkStream(frames: string[]): Promise<{ events: StreamedEvent[]; final: OpenAI.Responses.Response }> {
  const client = sdkClient(() => sseResponse(frames));
  const stream = client.responses.stream({ model: 'gateway-model', input: 'hi' });
  const events: StreamedEvent[] = [];
  for await (const event of stream) events.push(event as unknown as StreamedEvent);
  return { events, final: await stream.finalResponse() };
}

/** What the deltas alone rebuild, per output index (the SDK's snapshot is replaced at completion). */
function rebuiltFromDeltas(events: StreamedEvent[]): Map<number, string> {
  const rebuilt = new Map<number, string>();
  for (const event of events) {
    if (event.type.endsWith('.delta') && event.output_index !== undefined) {
      rebuilt.set(event.output_index, (rebuilt.get(event.output_index) ?? '') + (event.delta ?? ''));
    }
  }
  return rebuilt;
}

function itemStreamText(item: Record<string, unknown>): string {
  if (item.type === 'function_call') return String(item.arguments);
  if (item.type === 'reasoning') return (item.summary as Array<{ text: string }>).map((s) => s.text).join('');
  if (item.type === 'message') {
    return (item.content as Array<{ text?: string; refusal?: string }>).map((c) => c.text ?? c.refusal ?? '').join('');
  }
  return '';
}

describe('Responses stream encoder through the official SDK', () => {
  describe.each(SCENARIOS)('$name', ({ events, terminal }) => {
    const request = responsesCodec.inbound.decodeRequest(
      { model: 'gateway-model', input: 'hi', tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object' } }] },
      deterministicContext(),
    ).request;
    const options: InboundStreamOptions = { model: 'gateway-model', request };

    it('parses in the SDK and equals the non-streamed response', async () => {
      const { events: streamed, final } = await runSdkStream(encodeFrames(events, options));
      const expected = inbound.encodeResponse(irResponse(events), options, deterministicContext());
      expect(streamed[streamed.length - 1].type).toBe(terminal);
      if (terminal === 'response.completed') {
        expect(withoutSdkFields(final)).toEqual(expected);
      } else {
        // The SDK keeps its accumulated snapshot for `response.incomplete`: compare the content it built.
        const items = (final.output as unknown as Array<Record<string, unknown>>).map(itemStreamText);
        expect(items).toEqual((expected.output as Array<Record<string, unknown>>).map(itemStreamText));
        const last = streamed[streamed.length - 1] as unknown as { response: unknown };
        expect(last.response).toEqual(expected);
      }
    });

    it('sends contiguous items, increasing sequence numbers and deltas that rebuild every item', async () => {
      const { events: streamed } = await runSdkStream(encodeFrames(events, options));
      expect(streamed.map((event) => event.sequence_number)).toEqual(streamed.map((_, index) => index));
      expect(streamed.slice(0, 2).map((event) => event.type)).toEqual(['response.created', 'response.in_progress']);
      expect(streamed.filter((event) => /^response\.(completed|incomplete|failed)$/.test(event.type))).toHaveLength(1);
      const added = streamed.filter((event) => event.type === 'response.output_item.added').map((event) => event.output_index);
      const done = streamed.filter((event) => event.type === 'response.output_item.done');
      expect(added).toEqual(added.map((_, index) => index));
      expect(done.map((event) => event.output_index).sort()).toEqual(added);
      const rebuilt = rebuiltFromDeltas(streamed);
      for (const event of done) {
        if (event.item?.type === 'web_search_call') continue;
        expect(rebuilt.get(event.output_index ?? -1) ?? '').toBe(itemStreamText(event.item ?? {}));
      }
    });
  });

  it('closes a block the upstream left open when the next one starts, and keeps the last usage', async () => {
    const events: IrStreamEvent[] = [
      START,
      { type: 'usage', usage: { ...USAGE, outputTokens: 1 } },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'left open' },
      { type: 'block_start', index: 1, block: { kind: 'tool_call', id: 'c1', name: 'f' } },
      { type: 'tool_args_delta', index: 1, json: '{"x":1}' },
      { type: 'text_delta', index: 0, text: ' (late delta of a closed block is dropped)' },
      { type: 'block_end', index: 1 },
      { type: 'usage', usage: USAGE },
      { type: 'finish', finish: { unified: 'tool_calls', raw: 'STOP' } },
    ];
    const { final } = await runSdkStream(encodeFrames(events, { model: 'm' }));
    expect(final.output.map((item) => item.type)).toEqual(['message', 'function_call']);
    expect((final.output[0] as { content: Array<{ text: string }> }).content[0].text).toBe('left open');
    expect((final.output[1] as { arguments: string }).arguments).toBe('{"x":1}');
    expect(final.usage?.output_tokens).toBe(50);
  });

  it('uses the stored response id and echoes the request', async () => {
    const { request } = inbound.decodeRequest(
      {
        model: 'gateway-model',
        input: 'hi',
        instructions: 'Be brief.',
        temperature: 0.3,
        max_output_tokens: 99,
        reasoning: { effort: 'low', summary: 'auto' },
        metadata: { user_id: 'u1' },
        text: { format: { type: 'json_object' } },
      },
      deterministicContext(),
    );
    const options: InboundStreamOptions = { model: 'gateway-model', request, responseId: 'resp_stored42' };
    const { final } = await runSdkStream(encodeFrames([START, ...text(0, '{}'), ...ending('stop')], options));
    expect(final).toMatchObject({
      id: 'resp_stored42',
      model: 'gateway-model',
      instructions: 'Be brief.',
      temperature: 0.3,
      max_output_tokens: 99,
      reasoning: { effort: 'low', summary: 'auto' },
      metadata: { user_id: 'u1' },
      text: { format: { type: 'json_object' } },
      usage: {
        input_tokens: 125,
        input_tokens_details: { cached_tokens: 20 },
        output_tokens: 50,
        output_tokens_details: { reasoning_tokens: 12 },
        total_tokens: 175,
        reasoning_tokens: 12,
      },
    });
  });

  it('carries foreign opaque values in strings the client sends back, and recovers them', () => {
    const scenario = SCENARIOS[1];
    const response = inbound.encodeResponse(irResponse(scenario.events), { model: 'm' }, deterministicContext());
    const output = response.output as Array<Record<string, unknown>>;
    expect(output[0].encrypted_content).toBe(wrapOpaque({ origin: 'messages', value: JSON.stringify({ signature: 'sig-abc' }) }));
    expect(output[2].call_id).toBe('toolu_1');
    expect(String(output[3].call_id)).toMatch(/^gw1_g_/);
    // The client replays the output items, then answers the calls.
    const { request } = inbound.decodeRequest(
      {
        model: 'm',
        input: [
          ...output,
          { type: 'function_call_output', call_id: output[2].call_id, output: 'sunny' },
          { type: 'function_call_output', call_id: output[3].call_id, output: 'pong' },
        ],
      },
      deterministicContext(),
    );
    expect(request.turns).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Let me think.', signature: { origin: 'messages', value: 'sig-abc' } },
          { type: 'text', text: 'Calling tools.' },
          { type: 'tool_call', id: 'toolu_1', name: 'get_weather', argumentsJson: '{"city":"Paris"}' },
          {
            type: 'tool_call',
            id: 'gc_2',
            name: 'lookup',
            argumentsJson: '{}',
            signature: { origin: 'generate-content', value: 'thought-sig' },
          },
        ],
      },
      {
        role: 'user',
        parts: [
          { type: 'tool_result', callId: 'toolu_1', name: 'get_weather', content: [{ type: 'text', text: 'sunny' }] },
          { type: 'tool_result', callId: 'gc_2', name: 'lookup', content: [{ type: 'text', text: 'pong' }] },
        ],
      },
    ]);
  });

  it.each<[string, IrStreamEvent[], RegExp]>([
    [
      'an upstream error mid-stream',
      [START, ...text(0, 'partial'), { type: 'error', error: new GatewayError('overloaded', 'upstream overloaded', { status: 529 }) }],
      /upstream overloaded/,
    ],
    [
      'an error finish',
      [START, ...text(0, 'x'), ...ending('stop').slice(1), { type: 'finish', finish: { unified: 'error', raw: 'failed' } }],
      /stopped with an error/,
    ],
    ['a stream that ends without a finish', [START, ...text(0, 'x')], /without a finish reason/],
  ])('makes the SDK throw on %s, after one error event and response.failed', async (_name, events, message) => {
    const frames = encodeFrames(events, { model: 'm' });
    const types = frames.map((frame) => /^event: (\S+)/.exec(frame)?.[1]);
    expect(types.slice(-2)).toEqual(['error', 'response.failed']);
    const failed = JSON.parse(frames[frames.length - 1].split('data: ')[1]) as { response: { status: string; error: { message: string } } };
    expect(failed.response.status).toBe('failed');
    expect(failed.response.error.message).toMatch(message);
    await expect(runSdkStream(frames)).rejects.toThrow(message);
  });

  it('renders fail() with the error code and nothing after it', async () => {
    const context = deterministicContext();
    const encoder = inbound.createStreamEncoder({ model: 'm' }, context);
    const frames = [...encoder.push(START), ...text(0, 'a').flatMap((event) => encoder.push(event))];
    const failure = encoder.fail(new GatewayError('rate_limit', 'slow down', { retryAfterSeconds: 3 }));
    expect(encoder.end()).toEqual([]);
    expect(encoder.push({ type: 'usage', usage: USAGE })).toEqual([]);
    expect(encoder.fail(new GatewayError('internal', 'again'))).toEqual([]);
    const error = JSON.parse(failure[0].split('data: ')[1]) as Record<string, unknown>;
    expect(error).toMatchObject({
      type: 'error',
      code: 'rate_limit_exceeded',
      message: 'slow down',
      error: { type: 'rate_limit_error', code: 'rate_limit_exceeded', message: 'slow down' },
    });
    const caught = await runSdkStream([...frames, ...failure]).catch((thrown: unknown) => thrown);
    expect(caught).toBeInstanceOf(OpenAI.APIError);
    expect((caught as InstanceType<typeof OpenAI.APIError>).code).toBe('rate_limit_exceeded');
  });

  it('fails cleanly before anything else was sent', () => {
    const encoder = inbound.createStreamEncoder({ model: 'm' }, deterministicContext());
    const frames = encoder.fail(new GatewayError('timeout', 'too slow'));
    expect(frames.map((frame) => /^event: (\S+)/.exec(frame)?.[1])).toEqual([
      'response.created',
      'response.in_progress',
      'error',
      'response.failed',
    ]);
  });

  it('gives SDK clients output_text on the non-streamed answer', async () => {
    const scenario = SCENARIOS[3];
    const body = inbound.encodeResponse(irResponse(scenario.events), { model: 'm' }, deterministicContext());
    const response = await sdkClient(() => jsonResponse(200, body)).responses.create({ model: 'm', input: 'x' });
    expect(response.output_text).toBe('AB');
    expect(response.status).toBe('completed');
  });
});

describe('Responses error envelopes through the official SDK', () => {
  const CASES: Array<[ErrorKind, number, string, string, abstract new (...args: never[]) => unknown]> = [
    ['invalid_request', 400, 'invalid_request_error', 'invalid_request_error', OpenAI.BadRequestError],
    ['unsupported_model', 400, 'invalid_request_error', 'model_not_found', OpenAI.BadRequestError],
    ['unsupported_feature', 400, 'invalid_request_error', 'unsupported_feature', OpenAI.BadRequestError],
    ['protocol_unavailable', 400, 'invalid_request_error', 'unsupported_protocol', OpenAI.BadRequestError],
    ['authentication', 401, 'authentication_error', 'invalid_api_key', OpenAI.AuthenticationError],
    ['insufficient_balance', 402, 'insufficient_balance', 'insufficient_balance', OpenAI.APIError],
    ['permission', 403, 'permission_error', 'permission_denied', OpenAI.PermissionDeniedError],
    ['not_found', 404, 'not_found_error', 'not_found', OpenAI.NotFoundError],
    ['conflict', 409, 'invalid_request_error', 'conflict', OpenAI.ConflictError],
    ['request_too_large', 413, 'invalid_request_error', 'request_too_large', OpenAI.APIError],
    ['rate_limit', 429, 'rate_limit_error', 'rate_limit_exceeded', OpenAI.RateLimitError],
    ['concurrency_limit', 429, 'rate_limit_error', 'concurrency_limit', OpenAI.RateLimitError],
    ['upstream_error', 502, 'api_error', 'api_error', OpenAI.InternalServerError],
    ['no_available_account', 503, 'api_error', 'api_error', OpenAI.InternalServerError],
    ['overloaded', 503, 'api_error', 'api_error', OpenAI.InternalServerError],
    ['timeout', 502, 'api_error', 'api_error', OpenAI.InternalServerError],
    ['internal', 500, 'api_error', 'server_error', OpenAI.InternalServerError],
  ];

  it.each(CASES)('%s → HTTP %i, type %s, code %s', async (kind, status, type, code, errorClass) => {
    const rendered = inbound.encodeError(new GatewayError(kind, `boom ${kind}`, { param: 'input' }));
    expect(rendered.status).toBe(status);
    expect(rendered.body).toEqual({ error: { message: `boom ${kind}`, type, param: 'input', code } });
    const caught = await sdkClient(() => jsonResponse(rendered.status, rendered.body, rendered.headers))
      .responses.create({ model: 'm', input: 'x' })
      .catch((thrown: unknown) => thrown);
    expect(caught).toBeInstanceOf(errorClass);
    const apiError = caught as InstanceType<typeof OpenAI.APIError>;
    expect(apiError.status).toBe(status);
    expect(apiError.code).toBe(code);
    expect(apiError.type).toBe(type);
    expect(apiError.message).toBe(`${status} boom ${kind}`);
  });

  it('keeps an overloaded 529, and sets retry-after from retryAfterSeconds', () => {
    const rendered = inbound.encodeError(
      new GatewayError('overloaded', 'busy', { status: 529, retryAfterSeconds: 1.2, headers: { 'x-extra': '1' } }),
    );
    expect(rendered.status).toBe(529);
    expect(rendered.headers).toEqual({ 'x-extra': '1', 'retry-after': '2' });
    expect(inbound.encodeError(new GatewayError('internal', 'x')).headers).toEqual({});
  });
});
