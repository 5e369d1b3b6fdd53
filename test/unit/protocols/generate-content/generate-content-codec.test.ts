import { generateContentCodec } from '../../../../src/protocols/generate-content';

describe('generateContentCodec', () => {
  it('exposes both sides under the generate-content protocol', () => {
    expect(generateContentCodec.protocol).toBe('generate-content');
    expect(generateContentCodec.inbound.protocol).toBe('generate-content');
    expect(generateContentCodec.upstream.protocol).toBe('generate-content');
  });

  it.each([
    [true, 'text/event-stream'],
    [false, 'application/json'],
  ])('streams with sse=%s as %s', (sse, type) => {
    expect(generateContentCodec.inbound.streamContentType({ model: 'm', sse })).toBe(type);
  });
});

describe('generate-content pass-through meter', () => {
  const chunk = (extra: Record<string, unknown>) =>
    `data: ${JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, index: 0 }], ...extra })}\n\n`;

  it('reports an error frame', () => {
    const meter = generateContentCodec.createPassThroughMeter(true);
    meter.push(chunk({ usageMetadata: { promptTokenCount: 3, totalTokenCount: 3 } }));
    meter.push('data: {"error":{"code":503,"message":"busy","status":"UNAVAILABLE"}}\n\n');
    expect(meter.end()).toEqual({
      usage: { inputTokens: 3, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 },
      finish: null,
      error: true,
    });
  });

  it('reports no finish for a stream cut short, with the usage so far', () => {
    const meter = generateContentCodec.createPassThroughMeter(true);
    meter.push(chunk({ usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 } }));
    meter.push('data: {"candidates":[');
    const result = meter.end();
    expect(result.finish).toBeNull();
    expect(result.usage.outputTokens).toBe(1);
  });

  it('sees tool calls across chunks', () => {
    const meter = generateContentCodec.createPassThroughMeter(true);
    meter.push(`data: ${JSON.stringify({ candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: {} } }] } }] })}\n\n`);
    meter.push(
      `data: ${JSON.stringify({ candidates: [{ content: { parts: [{ text: '' }] }, finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 } })}\n\n`,
    );
    expect(meter.end().finish).toEqual({ unified: 'tool_calls', raw: 'STOP' });
  });

  it.each([
    ['an error body', '{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}'],
    ['a truncated body', '{"candidates":['],
  ])('reports %s of a whole answer as an error', (_name, body) => {
    const meter = generateContentCodec.createPassThroughMeter(false);
    meter.push(body);
    expect(meter.end()).toEqual({
      usage: { inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0 },
      finish: null,
      error: true,
    });
  });
});
