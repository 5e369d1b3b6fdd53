/**
 * Conformance, client stream encoders (every codec): a multi-block answer with parallel tool calls
 * follows the protocol's event rules and parses in the official SDK to what the SDK parses from the
 * whole body; a terminal event always ends a stream; a failure mid-stream renders the protocol's
 * error frame and nothing after it, and the SDK raises it.
 */
import { GatewayError } from '../../../../src/errors/gateway-error';
import { PROTOCOLS, type Protocol } from '../../../../src/ir/protocol';
import type { IrResponse } from '../../../../src/ir/response';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import type { InboundStreamOptions } from '../../../../src/protocols/codec';
import { CODECS } from '../../../../src/relay/codec-registry';
import { encodeStream } from '../../../support/codec-harness';
import { collectIrStream, deterministicContext } from '../../../support/sdk-responses';
import { createConversation, type ClientView } from '../matrix/client-conversation';
import { asArray, dig } from '../matrix/wire';
import { checkClientStream, parseFrames } from './client-stream-rules';
import { CACHED_USAGE, callId, multiBlockEvents } from './conformance-fixtures';

function options(protocol: Protocol, includeUsage = true): InboundStreamOptions {
  return { model: 'client-model', includeUsage, sse: true, responseId: protocol === 'responses' ? 'resp_1' : undefined };
}

/** What the protocol's official SDK makes of an answer served by a fake fetch. */
async function sdkView(protocol: Protocol, answer: { frames: string[] } | { body: Record<string, unknown> }): Promise<ClientView> {
  const stream = 'frames' in answer;
  const fetch = async (): Promise<Response> =>
    'frames' in answer
      ? new Response(answer.frames.join(''), { headers: { 'content-type': 'text/event-stream' } })
      : new Response(JSON.stringify(answer.body), { headers: { 'content-type': 'application/json' } });
  const conversation = createConversation(protocol, fetch, stream);
  conversation.user('Hello');
  return conversation.send();
}

async function sdkFailure(protocol: Protocol, frames: string[]): Promise<unknown> {
  try {
    await sdkView(protocol, { frames });
  } catch (error) {
    return error;
  }
  return undefined;
}

function fold(events: IrStreamEvent[]): IrResponse {
  const folded = collectIrStream(events);
  return { id: folded.id ?? '', model: folded.model ?? '', parts: folded.parts, finish: folded.finish!, usage: folded.usage! };
}

const START: IrStreamEvent = { type: 'start', id: 'answer_1', model: 'upstream-model' };
const TEXT: IrStreamEvent[] = [
  { type: 'block_start', index: 0, block: { kind: 'text' } },
  { type: 'text_delta', index: 0, text: 'Partial ans' },
];
/**
 * The stream ends in the protocol's own error frame (PROTOCOLS.md 4.3 rule 9), with no clean
 * ending and no invented finish before it.
 */
function expectErrorEnding(protocol: Protocol, frames: readonly string[]): void {
  const parsed = parseFrames(frames);
  const last = parsed[parsed.length - 1];
  const finished = parsed.some(
    (frame) =>
      typeof dig(frame.data, 'delta', 'stop_reason') === 'string' ||
      typeof dig(frame.data, 'choices', 0, 'finish_reason') === 'string' ||
      typeof dig(frame.data, 'candidates', 0, 'finishReason') === 'string',
  );
  expect(finished).toBe(false);
  switch (protocol) {
    case 'messages':
      expect(last).toEqual({ event: 'error', data: { type: 'error', error: { type: expect.any(String), message: expect.any(String) } } });
      expect(parsed.some((frame) => frame.event === 'message_stop')).toBe(false);
      break;
    case 'chat':
      expect(last?.data).toEqual({ error: expect.objectContaining({ message: expect.any(String), type: expect.any(String) }) });
      expect(parsed.some((frame) => frame.data === '[DONE]')).toBe(false);
      break;
    case 'responses':
      expect(parsed.map((frame) => frame.event)).toContain('response.failed');
      expect(parsed.some((frame) => frame.event === 'response.completed' || frame.event === 'response.incomplete')).toBe(false);
      break;
    case 'generate-content':
      expect(last?.data).toEqual({ error: { code: expect.any(Number), message: expect.any(String), status: expect.any(String) } });
      break;
  }
}

const OVERLOADED = new GatewayError('overloaded', 'upstream overloaded mid-stream', { status: 503 });

describe.each(PROTOCOLS)('%s stream encoder', (protocol) => {
  it('a multi-block answer with parallel tool calls follows the event rules and the SDK parses it like the whole body', async () => {
    const events = multiBlockEvents(protocol);
    const frames = encodeStream(protocol, events, options(protocol), deterministicContext());
    checkClientStream(protocol, frames, { includeUsage: true });
    const streamed = await sdkView(protocol, { frames });
    const whole = await sdkView(protocol, {
      body: CODECS[protocol].inbound.encodeResponse(fold(events), options(protocol), deterministicContext()),
    });
    expect(streamed).toEqual(whole);
    expect(streamed.toolCalls).toEqual([
      { id: expect.any(String), name: 'get_weather', args: { city: 'Paris' } },
      { id: expect.any(String), name: 'get_time', args: { zone: 'CET' } },
    ]);
    expect(streamed.text).toBe('Checking both.');
    expect(streamed.finish).toBe(
      { messages: 'tool_use', chat: 'tool_calls', responses: 'completed', 'generate-content': 'STOP' }[protocol],
    );
    // The usage that arrived after the finish made it into the final events (pitfall 11).
    expect(streamed.usage.output).toBe(CACHED_USAGE[protocol].outputTokens);
  });

  it('tool calls keep their own indexes when text or thinking came first (pitfall 24)', () => {
    const frames = parseFrames(encodeStream(protocol, multiBlockEvents(protocol), options(protocol), deterministicContext()));
    const ids = [callId(protocol, 1), callId(protocol, 2)];
    switch (protocol) {
      case 'messages': {
        const starts = frames.filter((frame) => dig(frame.data, 'content_block', 'type') === 'tool_use');
        expect(starts.map((frame) => dig(frame.data, 'index'))).toEqual([2, 3]);
        break;
      }
      case 'chat': {
        const calls = frames.flatMap((frame) => asArray(dig(frame.data, 'choices', 0, 'delta', 'tool_calls')));
        expect(calls.filter((call) => dig(call, 'id') !== undefined).map((call) => [dig(call, 'index'), dig(call, 'id')])).toEqual([
          [0, ids[0]],
          [1, ids[1]],
        ]);
        break;
      }
      case 'responses': {
        const added = frames.filter(
          (frame) => dig(frame.data, 'type') === 'response.output_item.added' && dig(frame.data, 'item', 'type') === 'function_call',
        );
        expect(added.map((frame) => dig(frame.data, 'item', 'call_id'))).toEqual(ids);
        break;
      }
      case 'generate-content': {
        const calls = frames
          .flatMap((frame) => asArray(dig(frame.data, 'candidates', 0, 'content', 'parts')))
          .filter((part) => dig(part, 'functionCall') !== undefined);
        expect(calls.map((part) => dig(part, 'functionCall', 'name'))).toEqual(['get_weather', 'get_time']);
        break;
      }
    }
  });

  it('the usage chunk goes to a Chat client only when it asked (other protocols always carry usage)', () => {
    const frames = encodeStream(protocol, multiBlockEvents(protocol), options(protocol, false), deterministicContext());
    checkClientStream(protocol, frames, { includeUsage: false });
  });

  it('a terminal event ends a complete answer (pitfall 22)', () => {
    const events: IrStreamEvent[] = [
      START,
      ...TEXT,
      { type: 'block_end', index: 0 },
      { type: 'finish', finish: { unified: 'stop', raw: 'end_turn' } },
      { type: 'usage', usage: CACHED_USAGE[protocol] },
    ];
    checkClientStream(protocol, encodeStream(protocol, events, options(protocol), deterministicContext()), { includeUsage: true });
  });

  it.each([
    ['an open block', [START, ...TEXT]],
    ['only the start', [START]],
    ['nothing at all', []],
  ] as Array<[string, IrStreamEvent[]]>)(
    'an upstream that ended with %s and no finish: an error ending, never an invented stop (pitfall 22)',
    async (_name, events) => {
      const encoder = CODECS[protocol].inbound.createStreamEncoder(options(protocol), deterministicContext());
      const frames = [...events.flatMap((event) => encoder.push(event)), ...encoder.end()];
      expectErrorEnding(protocol, frames);
      expect(await sdkFailure(protocol, frames)).toBeInstanceOf(Error);
    },
  );

  it('a failure mid-stream renders the protocol error frame, nothing after it, and the SDK raises it (pitfall 17)', async () => {
    const encoder = CODECS[protocol].inbound.createStreamEncoder(options(protocol), deterministicContext());
    const before = [START, ...TEXT].flatMap((event) => encoder.push(event));
    expect(before.length).toBeGreaterThan(0);
    const failure = encoder.fail(OVERLOADED);
    expect(failure.length).toBeGreaterThan(0);
    // Nothing after the error frame, whatever else arrives.
    expect(encoder.push({ type: 'text_delta', index: 0, text: 'more' })).toEqual([]);
    expect(encoder.end()).toEqual([]);
    expectErrorEnding(protocol, [...before, ...failure]);
    const last = parseFrames(failure).pop()!;
    if (protocol === 'messages') expect(dig(last.data, 'error', 'type')).toBe('overloaded_error');
    if (protocol === 'generate-content')
      expect(last.data).toEqual({ error: { code: 503, message: expect.stringContaining('overloaded'), status: 'UNAVAILABLE' } });
    const raised = await sdkFailure(protocol, [...before, ...failure]);
    expect(raised).toBeInstanceOf(Error);
    expect(String((raised as Error).message)).toContain('overloaded');
  });

  it('a failure before anything was sent still renders a valid error frame', async () => {
    const encoder = CODECS[protocol].inbound.createStreamEncoder(options(protocol), deterministicContext());
    const frames = encoder.fail(OVERLOADED);
    expect(frames.length).toBeGreaterThan(0);
    expect(encoder.end()).toEqual([]);
    const raised = await sdkFailure(protocol, frames);
    expect(raised).toBeInstanceOf(Error);
  });

  // Only Generate-Content streams without SSE framing (`streamGenerateContent` without `alt=sse`).
  const jsonArray = protocol === 'generate-content' ? it : it.skip;
  jsonArray(
    `streamed as one JSON array without SSE framing${protocol === 'generate-content' ? '' : ' — skipped: only Generate-Content has a non-SSE stream form'}`,
    () => {
      const events = multiBlockEvents(protocol);
      const whole = encodeStream(protocol, events, { ...options(protocol), sse: false }, deterministicContext()).join('');
      const chunks = JSON.parse(whole) as unknown[];
      expect(chunks.length).toBeGreaterThan(1);
      expect(dig(chunks[chunks.length - 1], 'candidates', 0, 'finishReason')).toBe('STOP');
      expect(chunks.slice(0, -1).every((chunk) => dig(chunk, 'candidates', 0, 'finishReason') === undefined)).toBe(true);
      // A failure keeps the array well formed, the error object last.
      const encoder = CODECS[protocol].inbound.createStreamEncoder({ ...options(protocol), sse: false }, deterministicContext());
      const failed = [...[START, ...TEXT].flatMap((event) => encoder.push(event)), ...encoder.fail(OVERLOADED)].join('');
      const parsed = JSON.parse(failed) as unknown[];
      expect(parsed[parsed.length - 1]).toEqual({ error: { code: 503, message: expect.any(String), status: 'UNAVAILABLE' } });
    },
  );
});
