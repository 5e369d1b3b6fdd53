/**
 * Issue 12, the Messages codec's defects seen with real clients: `system`/`developer` roles inside
 * `messages` (defect 2), a Generate-Content answer ending with a signature-only thinking block
 * (defect 3), and `input_tokens: 0` in `message_start` of a translated stream (defect 4).
 */
import { generateContentCodec } from '../../../../src/protocols/generate-content';
import { messagesCodec } from '../../../../src/protocols/messages';
import { SseParser } from '../../../../src/protocols/shared/sse-parser';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { decodeContext, testContext } from './helpers';

function frames(wire: string[]): Array<{ event: string; data: Record<string, any> }> {
  const parser = new SseParser();
  return wire.flatMap((chunk) => parser.push(chunk)).map((f) => ({ event: f.event ?? '', data: JSON.parse(f.data) }));
}

describe('issue 12 defect 2: system and developer roles inside Messages messages', () => {
  const decode = (body: unknown) => messagesCodec.inbound.decodeRequest(body, testContext());

  it('accepts them anywhere and carries their text as system instructions, in order', () => {
    const { request } = decode({
      model: 'deepseek-v3.2',
      max_tokens: 100,
      system: 'top-level system',
      messages: [
        { role: 'user', content: 'first question' },
        { role: 'system', content: '<env>cwd: /tmp</env>' },
        { role: 'assistant', content: 'first answer' },
        { role: 'developer', content: [{ type: 'text', text: 'be brief' }] },
        { role: 'user', content: 'second question' },
      ],
    });
    expect(request.system.map((part) => part.text)).toEqual(['top-level system', '<env>cwd: /tmp</env>', 'be brief']);
    expect(request.turns.map((turn) => turn.role)).toEqual(['user', 'assistant', 'user']);
    expect(request.turns[2]!.parts).toEqual([{ type: 'text', text: 'second question' }]);
  });

  it('still names a bad block inside a system message', () => {
    expect(() =>
      decode({
        model: 'm',
        max_tokens: 10,
        messages: [
          { role: 'system', content: [{ type: 'text' }] },
          { role: 'user', content: 'x' },
        ],
      }),
    ).toThrow(/messages\.0\.content\.0\.text/);
  });
});

describe('issue 12 defect 3: no trailing signature-only thinking block', () => {
  /** Gemini's stream: thoughts, the answer, then the final empty text part that carries the signature. */
  const GEMINI_SSE = [
    { candidates: [{ content: { role: 'model', parts: [{ text: 'Let me think.', thought: true }] } }] },
    { candidates: [{ content: { role: 'model', parts: [{ text: 'The answer is 4.' }] } }] },
    {
      candidates: [
        { content: { role: 'model', parts: [{ text: '', thoughtSignature: 'c2lnbmF0dXJlLW9mLXRoZS10ZXh0' }] }, finishReason: 'STOP' },
      ],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 5, thoughtsTokenCount: 3, totalTokenCount: 20 },
    },
  ].map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`);

  it('a Generate-Content stream relayed to a Messages client ends with its text block', () => {
    const decoder = generateContentCodec.upstream.createStreamDecoder(decodeContext());
    const events: IrStreamEvent[] = [...GEMINI_SSE.flatMap((chunk) => decoder.push(chunk)), ...decoder.end()];
    const encoder = messagesCodec.inbound.createStreamEncoder({ model: 'gemini-2.5-flash' }, testContext());
    const out = frames([...events.flatMap((event) => encoder.push(event)), ...encoder.end()]);
    const starts = out.filter((f) => f.event === 'content_block_start').map((f) => f.data.content_block.type);
    expect(starts).toEqual(['thinking', 'text']);
    expect(out.map((f) => f.event).slice(-2)).toEqual(['message_delta', 'message_stop']);
  });

  it('the complete answer has no thinking block after its text either', () => {
    const body = {
      candidates: [
        {
          content: { role: 'model', parts: [{ text: 'The answer is 4.' }, { text: '', thoughtSignature: 'c2lnbmF0dXJlLW9mLXRoZS10ZXh0' }] },
          finishReason: 'STOP',
        },
      ],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 },
    };
    const ir = generateContentCodec.upstream.decodeResponse(body, decodeContext());
    const rendered = messagesCodec.inbound.encodeResponse(ir, { model: 'gemini-2.5-flash' }, testContext());
    expect((rendered.content as Array<{ type: string }>).map((block) => block.type)).toEqual(['text']);
  });

  it('a function call keeps its signature (it must be replayed)', () => {
    const body = {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [{ functionCall: { name: 'read_file', args: { path: 'a' } }, thoughtSignature: 'Y2FsbC1zaWduYXR1cmU=' }],
          },
          finishReason: 'STOP',
        },
      ],
    };
    const ir = generateContentCodec.upstream.decodeResponse(body, decodeContext());
    const rendered = messagesCodec.inbound.encodeResponse(ir, { model: 'gemini-3-pro-preview' }, testContext());
    const blocks = rendered.content as Array<{ type: string; id?: string }>;
    expect(blocks.map((block) => block.type)).toEqual(['tool_use']);
    // The signature rides on the tool_use id, so the client's replay carries it back.
    const replay = messagesCodec.inbound.decodeRequest(
      {
        model: 'gemini-3-pro-preview',
        max_tokens: 10,
        messages: [
          { role: 'user', content: 'read a' },
          { role: 'assistant', content: [{ type: 'tool_use', id: blocks[0]!.id, name: 'read_file', input: { path: 'a' } }] },
        ],
      },
      testContext(),
    );
    const call = replay.request.turns[1]!.parts[0]!;
    expect(call.type === 'tool_call' && call.signature?.value).toBe('Y2FsbC1zaWduYXR1cmU=');
  });
});

describe('issue 12 defect 4: message_start carries the best input-token count known', () => {
  const chatEvents: IrStreamEvent[] = [
    // A Chat upstream: no usage before the end.
    { type: 'start', id: 'chatcmpl-1', model: 'deepseek-v3.2' },
    { type: 'block_start', index: 0, block: { kind: 'text' } },
    { type: 'text_delta', index: 0, text: 'Hi' },
    { type: 'block_end', index: 0 },
    { type: 'finish', finish: { unified: 'stop', raw: 'stop' } },
    { type: 'usage', usage: { inputTokens: 37, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
  ];

  function run(options: { model: string; inputTokensEstimate?: number }, events: IrStreamEvent[]) {
    const encoder = messagesCodec.inbound.createStreamEncoder(options, testContext());
    return frames([...events.flatMap((event) => encoder.push(event)), ...encoder.end()]);
  }

  it('uses the request estimate when the upstream has not counted yet; message_delta stays authoritative', () => {
    const out = run({ model: 'deepseek-v3.2', inputTokensEstimate: 40 }, chatEvents);
    expect(out[0]!.data.message.usage.input_tokens).toBe(40);
    expect(out.find((f) => f.event === 'message_delta')!.data.usage.input_tokens).toBe(37);
  });

  it('prefers the exact count when the upstream gives it first', () => {
    const events: IrStreamEvent[] = [{ type: 'start', id: 'msg_1', model: 'm', usage: { inputTokens: 33 } }, ...chatEvents.slice(1)];
    expect(run({ model: 'claude-sonnet-4-5', inputTokensEstimate: 40 }, events)[0]!.data.message.usage.input_tokens).toBe(33);
  });
});
