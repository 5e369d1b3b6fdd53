import { GatewayError } from '../../../../src/errors/gateway-error';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { wrapOpaque } from '../../../../src/protocols/shared/wrap-opaque';
import { createGenerateContentStreamEncoder } from '../../../../src/protocols/generate-content/generate-content-stream-encoder';
import { decodeGenerateContentRequest } from '../../../../src/protocols/generate-content/decode-generate-content-request';
import { testContext } from '../../../support/sdk-generate-content';

const usage = { inputTokens: 6, cacheReadTokens: 4, cacheWriteTokens: 0, outputTokens: 9, reasoningTokens: 2 };
const ids = { modelVersion: 'slug', responseId: 'r1' };
const part = (value: Record<string, unknown>) => ({ candidates: [{ content: { role: 'model', parts: [value] }, index: 0 }], ...ids });
const last = (finishReason: string, withUsage = true) => ({
  candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason, index: 0 }],
  ...(withUsage
    ? {
        usageMetadata: {
          promptTokenCount: 10,
          candidatesTokenCount: 7,
          totalTokenCount: 19,
          thoughtsTokenCount: 2,
          cachedContentTokenCount: 4,
        },
      }
    : {}),
  ...ids,
});

function run(events: IrStreamEvent[], sse: boolean, finish: 'end' | GatewayError = 'end'): string[] {
  const encoder = createGenerateContentStreamEncoder({ model: 'slug', sse }, testContext());
  const frames = events.flatMap((event) => encoder.push(event));
  frames.push(...(finish === 'end' ? encoder.end() : encoder.fail(finish)));
  // Nothing is ever written after the terminal frame.
  expect(encoder.push({ type: 'text_delta', index: 0, text: 'late' })).toEqual([]);
  expect(encoder.end()).toEqual([]);
  expect(encoder.fail(new GatewayError('internal', 'late'))).toEqual([]);
  return frames;
}

/** SSE frames → the JSON of each `data:` line. */
const sseChunks = (frames: string[]): unknown[] =>
  frames.map((frame) => {
    expect(frame).toMatch(/^data: .*\n\n$/s);
    return JSON.parse(frame.slice('data: '.length));
  });

const CASES: Array<[string, IrStreamEvent[], unknown[]]> = [
  [
    'text with usage and finish held for the last chunk',
    [
      { type: 'start', id: 'r1', model: 'upstream-model' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Hel' },
      { type: 'text_delta', index: 0, text: '' },
      { type: 'finish', finish: { unified: 'stop', raw: 'end_turn' } },
      { type: 'text_delta', index: 0, text: 'lo' },
      { type: 'block_end', index: 0 },
      { type: 'usage', usage },
    ],
    [part({ text: 'Hel' }), part({ text: 'lo' }), last('STOP')],
  ],
  [
    'thoughts with a signature of this protocol, then a tool call sent whole',
    [
      { type: 'start', id: 'r1', model: 'm' },
      { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'hmm' },
      { type: 'reasoning_opaque', index: 0, field: 'signature', value: { origin: 'generate-content', value: 'g-sig' } },
      { type: 'block_end', index: 0 },
      {
        type: 'block_start',
        index: 1,
        block: { kind: 'tool_call', id: 'toolu_1', name: 'weather', signature: { origin: 'generate-content', value: 'call-sig' } },
      },
      { type: 'tool_args_delta', index: 1, json: '{"city":' },
      { type: 'tool_args_delta', index: 1, json: '"Oslo"}' },
      { type: 'block_end', index: 1 },
      { type: 'usage', usage },
      { type: 'finish', finish: { unified: 'tool_calls', raw: 'tool_use' } },
    ],
    [
      part({ text: 'hmm', thought: true }),
      part({ text: '', thought: true, thoughtSignature: 'g-sig' }),
      part({ functionCall: { id: 'toolu_1', name: 'weather', args: { city: 'Oslo' } }, thoughtSignature: 'call-sig' }),
      last('STOP'),
    ],
  ],
  [
    'a tool call with no arguments',
    [
      { type: 'start', id: 'r1', model: 'm' },
      { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'c1', name: 'now' } },
      { type: 'block_end', index: 0 },
      { type: 'finish', finish: { unified: 'tool_calls', raw: null } },
    ],
    [part({ functionCall: { id: 'c1', name: 'now', args: {} } }), { ...last('STOP', false) }],
  ],
  [
    'length and content filter finishes, refusal text, an unclosed block closed at the end',
    [
      { type: 'start', id: 'r1', model: 'm' },
      { type: 'block_start', index: 0, block: { kind: 'refusal' } },
      { type: 'refusal_delta', index: 0, text: 'I cannot help.' },
      { type: 'finish', finish: { unified: 'content_filter', raw: 'refusal' } },
    ],
    [part({ text: 'I cannot help.' }), last('SAFETY', false)],
  ],
  [
    'native parts of this protocol pass, those of others do not',
    [
      { type: 'start', id: 'r1', model: 'm' },
      {
        type: 'block_start',
        index: 0,
        block: { kind: 'native', part: { type: 'native', protocol: 'generate-content', value: { executableCode: { code: '1' } } } },
      },
      { type: 'block_end', index: 0 },
      {
        type: 'block_start',
        index: 1,
        block: { kind: 'native', part: { type: 'native', protocol: 'messages', value: { type: 'server_tool_use' } } },
      },
      { type: 'block_end', index: 1 },
      { type: 'finish', finish: { unified: 'length', raw: 'MAX_TOKENS' } },
    ],
    [part({ executableCode: { code: '1' } }), last('MAX_TOKENS', false)],
  ],
];

describe('generate-content stream encoder', () => {
  it.each(CASES)('%s (SSE)', (_name, events, expected) => {
    expect(sseChunks(run(events, true))).toEqual(expected);
  });

  it.each(CASES)('%s (streamed JSON array)', (_name, events, expected) => {
    const frames = run(events, false);
    expect(frames[0].startsWith('[')).toBe(true);
    expect(frames[frames.length - 1]).toBe(']');
    expect(JSON.parse(frames.join(''))).toEqual(expected);
  });

  it('renders a mid-stream failure as the protocol error frame, and nothing after it', () => {
    const events: IrStreamEvent[] = [
      { type: 'start', id: 'r1', model: 'm' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'par' },
    ];
    const error = new GatewayError('overloaded', 'The model is overloaded.');
    expect(sseChunks(run(events, true, error))).toEqual([
      part({ text: 'par' }),
      { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
    ]);
    expect(JSON.parse(run(events, false, error).join(''))).toEqual([
      part({ text: 'par' }),
      { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
    ]);
  });

  it('renders an error event like fail()', () => {
    const frames = run(
      [
        { type: 'start', id: 'r1', model: 'm' },
        { type: 'error', error: new GatewayError('timeout', 'too slow') },
      ],
      true,
    );
    expect(sseChunks(frames)).toEqual([{ error: { code: 502, message: 'too slow', status: 'DEADLINE_EXCEEDED' } }]);
  });

  it('never invents a finish: a stream that ends without one ends in an error frame', () => {
    const frames = run(
      [
        { type: 'start', id: 'r1', model: 'm' },
        { type: 'block_start', index: 0, block: { kind: 'text' } },
        { type: 'text_delta', index: 0, text: 'a' },
      ],
      true,
    );
    expect(sseChunks(frames)).toEqual([
      part({ text: 'a' }),
      { error: { code: 502, message: expect.stringContaining('ended') as unknown, status: 'INTERNAL' } },
    ]);
  });

  it('synthesizes a response id when the upstream gave none', () => {
    const frames = run(
      [
        { type: 'block_start', index: 0, block: { kind: 'text' } },
        { type: 'text_delta', index: 0, text: 'a' },
        { type: 'finish', finish: { unified: 'stop', raw: null } },
      ],
      true,
    );
    expect((sseChunks(frames) as Array<{ responseId: string }>).map((c) => c.responseId)).toEqual(['id1', 'id1']);
  });

  it('carries reasoning opaques of other protocols in thoughtSignature, recovered from the client next turn', () => {
    const frames = run(
      [
        { type: 'start', id: 'r1', model: 'm' },
        { type: 'block_start', index: 0, block: { kind: 'reasoning', itemId: { origin: 'responses', value: 'rs_9' } } },
        { type: 'reasoning_delta', index: 0, text: 'summary' },
        { type: 'reasoning_opaque', index: 0, field: 'encrypted', value: { origin: 'responses', value: 'gAAAA' } },
        { type: 'block_end', index: 0 },
        { type: 'block_start', index: 1, block: { kind: 'reasoning' } },
        { type: 'reasoning_opaque', index: 1, field: 'redacted', value: { origin: 'messages', value: 'redacted-bytes' } },
        { type: 'block_end', index: 1 },
        { type: 'finish', finish: { unified: 'stop', raw: null } },
      ],
      true,
    );
    const chunks = sseChunks(frames) as Array<{ candidates: Array<{ content: { parts: Array<Record<string, unknown>> } }> }>;
    const parts = chunks.flatMap((c) => c.candidates[0].content.parts);
    expect(parts[1].thoughtSignature).toBe(wrapOpaque({ origin: 'responses', value: JSON.stringify({ e: 'gAAAA', i: 'rs_9' }) }));
    // The client sends its history back; the opaque values come back to their own origin, each
    // block whole again (its thought text and the signature-carrying part after it fold together).
    const decoded = decodeGenerateContentRequest(
      {
        contents: [
          { role: 'user', parts: [{ text: 'q' }] },
          { role: 'model', parts: parts.filter((p) => p.text !== '' || p.thoughtSignature) },
        ],
      },
      testContext(),
    );
    expect(decoded.request.turns[1].parts).toEqual([
      {
        type: 'reasoning',
        text: 'summary',
        encrypted: { origin: 'responses', value: 'gAAAA' },
        itemId: { origin: 'responses', value: 'rs_9' },
      },
      { type: 'reasoning', text: '', redacted: { origin: 'messages', value: 'redacted-bytes' } },
    ]);
  });
});
