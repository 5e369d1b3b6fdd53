import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { createGenerateContentStreamDecoder } from '../../../../src/protocols/generate-content/generate-content-stream-decoder';
import { decodeGenerateContentResponse } from '../../../../src/protocols/generate-content/decode-generate-content-response';
import { foldStreamEvents, testContext } from '../../../support/sdk-generate-content';

const sse = (chunks: unknown[]): string => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('');
const jsonArray = (chunks: unknown[]): string => `[${chunks.map((c) => JSON.stringify(c, null, 2)).join('\n,\r\n')}]`;
const chunk = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: 'model', parts }, index: 0, ...(extra.finishReason ? { finishReason: extra.finishReason } : {}) }],
  ...(extra.usage ? { usageMetadata: extra.usage } : {}),
  modelVersion: 'gemini-x',
  responseId: 'r1',
});
const usage = { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 3, totalTokenCount: 18 };
const normalized = { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 8, reasoningTokens: 3 };

function decodeAll(body: string, pieces: (text: string) => string[] = (t) => [t]): IrStreamEvent[] {
  const decoder = createGenerateContentStreamDecoder(testContext({ safe_name: 'unsafe/name' }));
  const events = pieces(body).flatMap((piece) => decoder.push(piece));
  return [...events, ...decoder.end()];
}

/** Events with errors reduced to their kind, for comparisons. */
function comparable(events: IrStreamEvent[]): unknown[] {
  return events.map((event) => (event.type === 'error' ? { type: 'error', kind: event.error.kind, message: event.error.message } : event));
}

const CASES: Array<[string, unknown[], unknown[]]> = [
  [
    'text deltas in one block, usage, finish on the last chunk',
    [
      chunk([{ text: 'Hel' }], { usage: { promptTokenCount: 10 } }),
      chunk([{ text: 'lo' }]),
      chunk([{ text: '' }], { finishReason: 'STOP', usage }),
    ],
    [
      { type: 'start', id: 'r1', model: 'gemini-x', usage: { inputTokens: 10, cacheReadTokens: 0 } },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Hel' },
      { type: 'usage', usage: { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 } },
      { type: 'text_delta', index: 0, text: 'lo' },
      { type: 'usage', usage: normalized },
      { type: 'block_end', index: 0 },
      { type: 'finish', finish: { unified: 'stop', raw: 'STOP' } },
    ],
  ],
  [
    'thoughts, then text, then a signature on an empty text part',
    [
      chunk([{ text: 'think ', thought: true }]),
      chunk([{ text: 'more', thought: true }, { text: 'Answer' }]),
      chunk([{ text: '', thoughtSignature: 'sig' }], { finishReason: 'STOP', usage }),
    ],
    [
      { type: 'start', id: 'r1', model: 'gemini-x' },
      { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'think ' },
      { type: 'reasoning_delta', index: 0, text: 'more' },
      { type: 'block_end', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'text' } },
      { type: 'text_delta', index: 1, text: 'Answer' },
      { type: 'block_end', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'reasoning' } },
      { type: 'reasoning_opaque', index: 2, field: 'signature', value: { origin: 'generate-content', value: 'sig' } },
      { type: 'block_end', index: 2 },
      { type: 'usage', usage: normalized },
      { type: 'finish', finish: { unified: 'stop', raw: 'STOP' } },
    ],
  ],
  // Issue 4: a signature on a text part with text used to split the text block around it.
  [
    'a thoughtSignature on a text part with text waits for the text block to close',
    [
      chunk([{ text: 'Echo: Tell', thoughtSignature: 'sig' }]),
      chunk([{ text: ' me' }]),
      chunk([{ text: ' more' }], { finishReason: 'STOP' }),
    ],
    [
      { type: 'start', id: 'r1', model: 'gemini-x' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Echo: Tell' },
      { type: 'text_delta', index: 0, text: ' me' },
      { type: 'text_delta', index: 0, text: ' more' },
      { type: 'block_end', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'reasoning' } },
      { type: 'reasoning_opaque', index: 1, field: 'signature', value: { origin: 'generate-content', value: 'sig' } },
      { type: 'block_end', index: 1 },
      { type: 'finish', finish: { unified: 'stop', raw: 'STOP' } },
    ],
  ],
  [
    'a held text signature comes out before the next block, and a second one starts a new text block',
    [
      chunk([{ text: 'a', thoughtSignature: 's1' }, { text: 'b' }, { text: 'c', thoughtSignature: 's2' }]),
      chunk([{ functionCall: { id: 'f1', name: 'plain', args: {} } }], { finishReason: 'STOP' }),
    ],
    [
      { type: 'start', id: 'r1', model: 'gemini-x' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'a' },
      { type: 'text_delta', index: 0, text: 'b' },
      { type: 'block_end', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'reasoning' } },
      { type: 'reasoning_opaque', index: 1, field: 'signature', value: { origin: 'generate-content', value: 's1' } },
      { type: 'block_end', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'text' } },
      { type: 'text_delta', index: 2, text: 'c' },
      { type: 'block_end', index: 2 },
      { type: 'block_start', index: 3, block: { kind: 'reasoning' } },
      { type: 'reasoning_opaque', index: 3, field: 'signature', value: { origin: 'generate-content', value: 's2' } },
      { type: 'block_end', index: 3 },
      { type: 'block_start', index: 4, block: { kind: 'tool_call', id: 'f1', name: 'plain' } },
      { type: 'tool_args_delta', index: 4, json: '{}' },
      { type: 'block_end', index: 4 },
      { type: 'finish', finish: { unified: 'tool_calls', raw: 'STOP' } },
    ],
  ],
  [
    'a signed thought closes its block; more thought text opens a new one',
    [
      chunk(
        [
          { text: 'a', thought: true, thoughtSignature: 's1' },
          { text: 'b', thought: true },
        ],
        { finishReason: 'STOP' },
      ),
    ],
    [
      { type: 'start', id: 'r1', model: 'gemini-x' },
      { type: 'block_start', index: 0, block: { kind: 'reasoning' } },
      { type: 'reasoning_delta', index: 0, text: 'a' },
      { type: 'reasoning_opaque', index: 0, field: 'signature', value: { origin: 'generate-content', value: 's1' } },
      { type: 'block_end', index: 0 },
      { type: 'block_start', index: 1, block: { kind: 'reasoning' } },
      { type: 'reasoning_delta', index: 1, text: 'b' },
      { type: 'block_end', index: 1 },
      { type: 'finish', finish: { unified: 'stop', raw: 'STOP' } },
    ],
  ],
  [
    'whole function calls: one block each, ids synthesized, names restored, tool_calls finish',
    [
      chunk([{ text: 'Let me check.' }, { functionCall: { name: 'safe_name', args: { a: 1 } }, thoughtSignature: 'cs' }]),
      chunk([{ functionCall: { id: 'fc-9', name: 'plain' } }]),
      chunk([{ text: '' }], { finishReason: 'STOP' }),
    ],
    [
      { type: 'start', id: 'r1', model: 'gemini-x' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'Let me check.' },
      { type: 'block_end', index: 0 },
      {
        type: 'block_start',
        index: 1,
        block: { kind: 'tool_call', id: 'call_id1', name: 'unsafe/name', signature: { origin: 'generate-content', value: 'cs' } },
      },
      { type: 'tool_args_delta', index: 1, json: '{"a":1}' },
      { type: 'block_end', index: 1 },
      { type: 'block_start', index: 2, block: { kind: 'tool_call', id: 'fc-9', name: 'plain' } },
      { type: 'tool_args_delta', index: 2, json: '{}' },
      { type: 'block_end', index: 2 },
      { type: 'finish', finish: { unified: 'tool_calls', raw: 'STOP' } },
    ],
  ],
  [
    'streamed arguments (partialArgs) gathered into one delta',
    [
      chunk([{ functionCall: { name: 'plain', willContinue: true } }]),
      chunk([{ functionCall: { partialArgs: [{ jsonPath: '$.city', stringValue: 'San ', willContinue: true }], willContinue: true } }]),
      chunk([
        {
          functionCall: {
            partialArgs: [
              { jsonPath: '$.city', stringValue: 'Jose' },
              { jsonPath: '$.days', numberValue: 3 },
              { jsonPath: '$.opts.metric', boolValue: true },
              { jsonPath: '$.tags[0]', stringValue: 'x' },
            ],
            willContinue: true,
          },
        },
      ]),
      chunk([{ functionCall: {} }], { finishReason: 'STOP' }),
    ],
    [
      { type: 'start', id: 'r1', model: 'gemini-x' },
      { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'call_id1', name: 'plain' } },
      { type: 'tool_args_delta', index: 0, json: '{"city":"San Jose","days":3,"opts":{"metric":true},"tags":["x"]}' },
      { type: 'block_end', index: 0 },
      { type: 'finish', finish: { unified: 'tool_calls', raw: 'STOP' } },
    ],
  ],
  [
    'a prompt blocked before generation',
    [
      {
        promptFeedback: { blockReason: 'SAFETY' },
        usageMetadata: { promptTokenCount: 4, totalTokenCount: 4 },
        responseId: 'r1',
        modelVersion: 'gemini-x',
      },
    ],
    [
      { type: 'start', id: 'r1', model: 'gemini-x', usage: { inputTokens: 4, cacheReadTokens: 0 } },
      { type: 'usage', usage: { inputTokens: 4, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 } },
      { type: 'finish', finish: { unified: 'content_filter', raw: 'SAFETY' } },
    ],
  ],
  [
    'a stream cut before its finishReason ends in an error, never a clean finish',
    [chunk([{ text: 'partial' }])],
    [
      { type: 'start', id: 'r1', model: 'gemini-x' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'partial' },
      { type: 'error', kind: 'upstream_error', message: 'the upstream stream ended before its final chunk' },
    ],
  ],
  [
    'an error frame mid-stream',
    [
      chunk([{ text: 'partial' }]),
      { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
      chunk([{ text: 'ignored' }], { finishReason: 'STOP' }),
    ],
    [
      { type: 'start', id: 'r1', model: 'gemini-x' },
      { type: 'block_start', index: 0, block: { kind: 'text' } },
      { type: 'text_delta', index: 0, text: 'partial' },
      { type: 'error', kind: 'overloaded', message: 'The model is overloaded.' },
    ],
  ],
];

describe('generate-content stream decoder', () => {
  it.each(CASES)('%s (SSE)', (_name, chunks, expected) => {
    expect(comparable(decodeAll(sse(chunks)))).toEqual(expected);
  });

  it.each(CASES)('%s (streamed JSON array)', (_name, chunks, expected) => {
    const events = comparable(decodeAll(jsonArray(chunks)));
    expect(events).toEqual(expected);
  });

  it.each(CASES)('%s (split one character at a time)', (_name, chunks, expected) => {
    expect(comparable(decodeAll(sse(chunks), (text) => [...text]))).toEqual(expected);
    expect(comparable(decodeAll(jsonArray(chunks), (text) => [...text]))).toEqual(expected);
  });

  it('does not split a text block at a thoughtSignature: it folds to what the body decoder reads (issue 4)', () => {
    const text = ['Echo: Tell', ' me about', ' the fox'];
    const streamed = sse([
      chunk([{ text: text[0], thoughtSignature: 'sig' }], { usage }),
      chunk([{ text: text[1] }], { usage }),
      chunk([{ text: text[2] }], { finishReason: 'STOP', usage }),
    ]);
    const whole = decodeGenerateContentResponse(
      chunk([{ text: text.join(''), thoughtSignature: 'sig' }], { finishReason: 'STOP', usage }),
      testContext(),
    );
    const folded = foldStreamEvents(decodeAll(streamed));
    expect(folded.parts).toEqual(whole.parts);
    expect(folded.parts).toEqual([
      { type: 'text', text: 'Echo: Tell me about the fox' },
      { type: 'reasoning', text: '', signature: { origin: 'generate-content', value: 'sig' } },
    ]);
  });

  it('accepts CRLF line ends and keepalive comments', () => {
    const body = `: keepalive\r\n\r\ndata: ${JSON.stringify(chunk([{ text: 'x' }], { finishReason: 'STOP' }))}\r\n\r\n`;
    expect(decodeAll(body).map((e) => e.type)).toEqual(['start', 'block_start', 'text_delta', 'block_end', 'finish']);
  });

  it('reports a malformed chunk as an upstream error and stops', () => {
    const events = comparable(decodeAll('data: {"candidates": [\n\ndata: {}\n\n'));
    expect(events).toEqual([{ type: 'error', kind: 'upstream_error', message: 'the upstream sent a malformed stream chunk' }]);
  });

  it('reports an empty stream as an error', () => {
    expect(comparable(decodeAll(''))).toEqual([
      { type: 'error', kind: 'upstream_error', message: 'the upstream stream ended before its final chunk' },
    ]);
  });

  it('keeps the usage that arrives after the finish chunk', () => {
    const events = decodeAll(sse([chunk([{ text: 'x' }], { finishReason: 'STOP' }), { usageMetadata: usage }]));
    expect(events.map((e) => e.type)).toEqual(['start', 'block_start', 'text_delta', 'block_end', 'finish', 'usage']);
  });

  it('takes the retry delay of a 429 error frame', () => {
    const events = decodeAll(
      sse([
        {
          error: {
            code: 429,
            message: 'slow down',
            status: 'RESOURCE_EXHAUSTED',
            details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
          },
        },
      ]),
    );
    const error = events.find((e) => e.type === 'error');
    expect(error?.type === 'error' && error.error.kind).toBe('rate_limit');
    expect(error?.type === 'error' && error.error.retryAfterSeconds).toBe(7);
  });
});
