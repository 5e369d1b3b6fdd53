import { GatewayError } from '../../../../src/errors/gateway-error';
import { decodeGenerateContentResponse } from '../../../../src/protocols/generate-content/decode-generate-content-response';
import { testContext } from '../../../support/sdk-generate-content';

const answer = (parts: unknown[], extra: Record<string, unknown> = {}) => ({
  candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0, ...extra }],
  usageMetadata: {
    promptTokenCount: 100,
    cachedContentTokenCount: 40,
    candidatesTokenCount: 20,
    thoughtsTokenCount: 30,
    totalTokenCount: 150,
  },
  modelVersion: 'gemini-x',
  responseId: 'resp-1',
  createTime: '2026-04-02T17:03:50.399550Z',
});

describe('decodeGenerateContentResponse', () => {
  it('decodes text, thoughts, signatures and normalized usage', () => {
    const response = decodeGenerateContentResponse(
      answer([
        { text: 'plan', thought: true },
        { text: 'Hello', thoughtSignature: 'sig' },
      ]),
      testContext(),
    );
    expect(response).toEqual({
      id: 'resp-1',
      model: 'gemini-x',
      created: 1775149430,
      parts: [
        { type: 'reasoning', text: 'plan' },
        { type: 'text', text: 'Hello' },
        { type: 'reasoning', text: '', signature: { origin: 'generate-content', value: 'sig' } },
      ],
      finish: { unified: 'stop', raw: 'STOP' },
      // promptTokenCount includes the cached tokens; candidatesTokenCount excludes the thoughts.
      usage: { inputTokens: 60, cacheReadTokens: 40, cacheWriteTokens: 0, outputTokens: 50, reasoningTokens: 30 },
    });
  });

  it('reports STOP with function calls as tool_calls, synthesizes ids and restores sanitized names', () => {
    const response = decodeGenerateContentResponse(
      answer([
        { functionCall: { name: 'mcp_search', args: { q: 'x' } }, thoughtSignature: 'call-sig' },
        { functionCall: { id: 'given', name: 'other' } },
      ]),
      testContext({ mcp_search: 'mcp/search' }),
    );
    expect(response.parts).toEqual([
      {
        type: 'tool_call',
        id: 'call_id1',
        name: 'mcp/search',
        argumentsJson: '{"q":"x"}',
        signature: { origin: 'generate-content', value: 'call-sig' },
      },
      { type: 'tool_call', id: 'given', name: 'other', argumentsJson: '{}' },
    ]);
    expect(response.finish).toEqual({ unified: 'tool_calls', raw: 'STOP' });
  });

  it.each([
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', 'error'],
    ['OTHER', 'other'],
    ['SOMETHING_NEW', 'other'],
  ])('maps finishReason %s to %s, keeping the raw value', (raw, unified) => {
    expect(decodeGenerateContentResponse(answer([{ text: 'x' }], { finishReason: raw }), testContext()).finish).toEqual({ unified, raw });
  });

  it('reports a prompt blocked before generation as content_filter', () => {
    const response = decodeGenerateContentResponse(
      { promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } },
      testContext(),
    );
    expect(response.parts).toEqual([]);
    expect(response.finish).toEqual({ unified: 'content_filter', raw: 'PROHIBITED_CONTENT' });
    expect(response.usage.inputTokens).toBe(5);
    expect(response.id).toBe('id1');
  });

  it('decodes inline images and unknown parts', () => {
    const response = decodeGenerateContentResponse(
      answer([{ inlineData: { mimeType: 'image/png', data: 'iVBOR' } }, { executableCode: { language: 'PYTHON', code: 'print(1)' } }]),
      testContext(),
    );
    expect(response.parts).toEqual([
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } },
      { type: 'native', protocol: 'generate-content', value: { executableCode: { language: 'PYTHON', code: 'print(1)' } } },
    ]);
  });

  it.each([
    ['an error body', { error: { code: 500, message: 'x', status: 'INTERNAL' } }],
    ['a non-object', 'nope'],
    ['a wrong shape', { candidates: 'many' }],
  ])('throws upstream_error for %s', (_name, body) => {
    expect(() => decodeGenerateContentResponse(body, testContext())).toThrow(GatewayError);
    try {
      decodeGenerateContentResponse(body, testContext());
    } catch (error) {
      expect((error as GatewayError).kind).toBe('upstream_error');
    }
  });
});
