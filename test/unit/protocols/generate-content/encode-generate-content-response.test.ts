import { wrapOpaque } from '../../../../src/protocols/shared/wrap-opaque';
import type { IrResponse } from '../../../../src/ir/response';
import type { FinishReason } from '../../../../src/ir/finish-reason';
import { encodeGenerateContentResponse } from '../../../../src/protocols/generate-content/encode-generate-content-response';

const base: IrResponse = {
  id: 'msg_1',
  model: 'claude-x',
  parts: [],
  finish: { unified: 'stop', raw: 'end_turn' },
  usage: { inputTokens: 10, cacheReadTokens: 5, cacheWriteTokens: 2, outputTokens: 30, reasoningTokens: 12 },
};
const encode = (overrides: Partial<IrResponse>) => encodeGenerateContentResponse({ ...base, ...overrides }, { model: 'slug' });
const partsOf = (body: Record<string, unknown>) => (body.candidates as Array<{ content: { parts: unknown[] } }>)[0].content.parts;

describe('encodeGenerateContentResponse', () => {
  it('renders the GenerateContentResponse shape with normalized usage turned back into usageMetadata', () => {
    expect(encode({ parts: [{ type: 'text', text: 'Hi' }] })).toEqual({
      candidates: [{ content: { role: 'model', parts: [{ text: 'Hi' }] }, finishReason: 'STOP', index: 0 }],
      // prompt = input + cache read + cache write; candidates exclude the thoughts.
      usageMetadata: {
        promptTokenCount: 17,
        candidatesTokenCount: 18,
        thoughtsTokenCount: 12,
        cachedContentTokenCount: 5,
        totalTokenCount: 47,
      },
      modelVersion: 'slug',
      responseId: 'msg_1',
    });
  });

  it('omits zero thoughts and cached counts', () => {
    const body = encode({ usage: { inputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 4, reasoningTokens: 0 } });
    expect(body.usageMetadata).toEqual({ promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 });
  });

  it('renders thoughts, tool calls, media and signatures; skips what has no client form', () => {
    const body = encode({
      parts: [
        { type: 'reasoning', text: 'plan', signature: { origin: 'generate-content', value: 'g1' } },
        { type: 'reasoning', text: 'claude plan', signature: { origin: 'messages', value: 'anthropic-sig' } },
        { type: 'reasoning', text: 'unsigned' },
        { type: 'reasoning', text: '' },
        { type: 'text', text: 'Answer' },
        { type: 'reasoning', text: '', signature: { origin: 'generate-content', value: 'g2' } },
        { type: 'tool_call', id: 'call_1', name: 'f', argumentsJson: '{"a":1}', signature: { origin: 'generate-content', value: 'g3' } },
        { type: 'tool_call', id: 'call_2', name: 'g', argumentsJson: 'oops' },
        { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'QQ==' } },
        { type: 'refusal', text: 'no' },
        { type: 'native', protocol: 'messages', value: { type: 'web_search_tool_result' } },
        { type: 'native', protocol: 'generate-content', value: { codeExecutionResult: { output: '1' } } },
      ],
    });
    expect(partsOf(body)).toEqual([
      { text: 'plan', thought: true, thoughtSignature: 'g1' },
      {
        text: 'claude plan',
        thought: true,
        thoughtSignature: wrapOpaque({ origin: 'messages', value: JSON.stringify({ s: 'anthropic-sig' }) }),
      },
      { text: 'unsigned', thought: true },
      // A signature with no thought text goes back onto the text part it came with.
      { text: 'Answer', thoughtSignature: 'g2' },
      { functionCall: { id: 'call_1', name: 'f', args: { a: 1 } }, thoughtSignature: 'g3' },
      { functionCall: { id: 'call_2', name: 'g', args: { _raw_arguments: 'oops' } } },
      { inlineData: { mimeType: 'image/png', data: 'QQ==' } },
      { text: 'no' },
      { codeExecutionResult: { output: '1' } },
    ]);
  });

  it.each([
    [{ unified: 'stop', raw: 'end_turn' }, 'STOP'],
    [{ unified: 'stop_sequence', raw: 'stop_sequence', stopSequence: 'END' }, 'STOP'],
    [{ unified: 'tool_calls', raw: 'tool_use' }, 'STOP'],
    [{ unified: 'tool_calls', raw: 'STOP' }, 'STOP'],
    [{ unified: 'length', raw: 'max_tokens' }, 'MAX_TOKENS'],
    [{ unified: 'content_filter', raw: 'refusal' }, 'SAFETY'],
    [{ unified: 'content_filter', raw: 'RECITATION' }, 'RECITATION'],
    [{ unified: 'error', raw: 'MALFORMED_FUNCTION_CALL' }, 'MALFORMED_FUNCTION_CALL'],
    [{ unified: 'other', raw: 'STOP' }, 'OTHER'],
    [{ unified: 'pause', raw: 'pause_turn' }, 'OTHER'],
    [{ unified: 'context_exceeded', raw: null }, 'OTHER'],
  ] as Array<[FinishReason, string]>)('finish %j → %s', (finish, finishReason) => {
    expect((encode({ finish }).candidates as Array<{ finishReason: string }>)[0].finishReason).toBe(finishReason);
  });
});
