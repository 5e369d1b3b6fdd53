/**
 * Conformance, upstream stream decoders (every codec), against the strict simulator's native
 * streams: the same bytes split at arbitrary offsets give the same IR events; those events keep the
 * IR stream contract (start first, contiguous block indexes, one open block, nothing after an
 * error); they fold to the answer the body decoder reads from the non-streamed twin; an error event
 * mid-stream and a cut stream become an `error` event, never a clean finish.
 */
import { startSimulator, type Simulator } from '../../../../scripts/provider-sim/server';
import { PROTOCOLS, type Protocol } from '../../../../src/ir/protocol';
import type { ContentPart } from '../../../../src/ir/parts';
import type { IrRequest } from '../../../../src/ir/request';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { CODECS } from '../../../../src/relay/codec-registry';
import { callSimulator, decodeStream, simTarget } from '../../../support/codec-harness';
import { collectIrStream, deterministicContext, seededRandom } from '../../../support/sdk-responses';
import { TIME, WEATHER } from '../matrix/matrix-scenarios';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
});
afterAll(async () => {
  await sim.close();
});

function request(text: string, extra: Partial<IrRequest> = {}): IrRequest {
  return {
    model: 'client-model',
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text }] }],
    tools: [],
    builtinTools: [],
    sampling: { maxOutputTokens: 2048 },
    stream: false,
    ...extra,
  };
}

const ANSWERS: Array<{ name: string; request: IrRequest }> = [
  { name: 'text over several chunks', request: request('Tell me about the quick brown fox that jumps over the lazy dog') },
  {
    name: 'reasoning, then two parallel tool calls',
    request: request('Please call get_weather and get_time for Paris', {
      tools: [WEATHER, TIME].map((tool) => ({ name: tool.name, description: tool.description, parameters: tool.schema })),
      reasoning: { effort: 'low', includeThoughts: true, summary: 'auto' },
    }),
  },
];

/** Both twins of one answer: the whole body and the stream, as the simulator sent them. */
async function twins(
  protocol: Protocol,
  ir: IrRequest,
  headers: Record<string, string> = {},
): Promise<{ body: string; stream: string; toolNames: Record<string, string> }> {
  const context = deterministicContext();
  const whole = CODECS[protocol].upstream.encodeRequest({ ...ir, stream: false }, simTarget(protocol), context);
  const streamed = CODECS[protocol].upstream.encodeRequest({ ...ir, stream: true }, simTarget(protocol), context);
  const [body, stream] = await Promise.all([callSimulator(sim, protocol, whole), callSimulator(sim, protocol, streamed, headers)]);
  expect([body.status, stream.status]).toEqual([200, 200]);
  return { body: body.text, stream: stream.text, toolNames: whole.toolNames };
}

/** Ids differ between two answers to the same question; everything else must not. */
function withoutIds(parts: ContentPart[]): unknown[] {
  return parts.map((part) => {
    if (part.type === 'tool_call') return { ...part, id: '<id>' };
    if (part.type === 'reasoning' && part.itemId) return { ...part, itemId: '<id>' };
    return part;
  });
}

describe.each(PROTOCOLS)('%s stream decoder', (protocol) => {
  describe.each(ANSWERS)('$name', ({ request: ir }) => {
    it('gives the same events whatever the byte offsets the stream is split at', async () => {
      const { stream, toolNames } = await twins(protocol, ir);
      const decode = (seed: number): IrStreamEvent[] =>
        decodeStream(protocol, stream, { ...deterministicContext(), toolNames }, seededRandom(seed));
      const reference = decode(0);
      for (const seed of [11, 12, 13, 14, 15]) expect(decode(seed)).toEqual(reference);
      // Whole, in one piece.
      const decoder = CODECS[protocol].upstream.createStreamDecoder({ ...deterministicContext(), toolNames });
      expect([...decoder.push(stream), ...decoder.end()]).toEqual(reference);
    });

    it('keeps the IR stream contract and folds to what the body decoder reads from the whole answer', async () => {
      const { body, stream, toolNames } = await twins(protocol, ir);
      const folded = collectIrStream(decodeStream(protocol, stream, { ...deterministicContext(), toolNames }, seededRandom(3)));
      const whole = CODECS[protocol].upstream.decodeResponse(JSON.parse(body) as unknown, { ...deterministicContext(), toolNames });
      expect(folded.error).toBeUndefined();
      expect(withoutIds(folded.parts)).toEqual(withoutIds(whole.parts));
      expect(folded.finish).toEqual(whole.finish);
      expect(folded.usage).toEqual(whole.usage);
      expect(folded.usage?.outputTokens).toBeGreaterThan(0);
    });
  });

  it('an error event mid-stream becomes an error event, with no finish (pitfall 17)', async () => {
    const { stream, toolNames } = await twins(protocol, ANSWERS[0]!.request, { 'x-sim-fault': 'error-event' });
    const events = decodeStream(protocol, stream, { ...deterministicContext(), toolNames }, seededRandom(4));
    const folded = collectIrStream(events);
    expect(folded.error).toBeDefined();
    expect(events[events.length - 1]?.type).toBe('error');
    expect(events.some((event) => event.type === 'finish')).toBe(false);
  });

  it('a stream cut before its terminal event becomes an error event at the end, never a clean finish', async () => {
    const { stream, toolNames } = await twins(protocol, ANSWERS[0]!.request, { 'x-sim-fault': 'cut' });
    const events = decodeStream(protocol, stream, { ...deterministicContext(), toolNames }, seededRandom(5));
    expect(events[events.length - 1]?.type).toBe('error');
    expect(events.some((event) => event.type === 'finish')).toBe(false);
  });
});
