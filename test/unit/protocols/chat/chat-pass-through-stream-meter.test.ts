/** The Chat stream meter of pass-through (issue 13): frames read by hand, output counted for an abandoned stream, error frames reported. */
import { createChatPassThroughMeter } from '../../../../src/protocols/chat/chat-pass-through-meter';

const frame = (value: unknown) => `data: ${JSON.stringify(value)}\n\n`;
const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
  frame({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices, ...extra });

describe('Chat pass-through stream meter', () => {
  it('counts choice 0 only, text, reasoning, refusal and tool arguments alike, and reads usage and finish', () => {
    const meter = createChatPassThroughMeter(true);
    meter.push(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
    meter.push(chunk([{ index: 0, delta: { content: 'abcd' }, finish_reason: null }]));
    meter.push(chunk([{ index: 1, delta: { content: 'not choice 0, never counted' }, finish_reason: null }]));
    meter.push(chunk([{ index: 0, delta: { content: 'é"\\' }, finish_reason: null }]));
    meter.push(chunk([{ index: 0, delta: { reasoning_content: 'think' }, finish_reason: null }]));
    meter.push(chunk([{ index: 0, delta: { refusal: 'no' }, finish_reason: null }]));
    meter.push(
      chunk([
        {
          index: 0,
          delta: { tool_calls: [{ index: 0, id: 't', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
          finish_reason: null,
        },
      ]),
    );
    // Bytes: 4 + 5 (é is two) + 5 + 2 + 7 = 23 → 6 tokens; the input is the estimate until reported.
    expect(meter.failed()).toBe(false);
    expect(meter.untilAbort(50)).toMatchObject({ inputTokens: 50, outputTokens: 6 });
    meter.push(chunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]));
    meter.push(chunk([], { usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 } }));
    meter.push('data: [DONE]\n\n');
    const reading = meter.end();
    expect(reading.error).toBe(false);
    expect(reading.finish?.unified).toBe('tool_calls');
    expect(reading.usage).toMatchObject({ inputTokens: 10, outputTokens: 3 });
    // Reported output below what was counted: an abandoned stream bills the larger.
    expect(meter.untilAbort(50)).toMatchObject({ inputTokens: 10, outputTokens: 6 });
  });

  it('reports an error frame as it passes (failover before the first byte), and a stream cut before [DONE] as an error', () => {
    const failing = createChatPassThroughMeter(true);
    failing.push(chunk([{ index: 0, delta: { content: 'a' }, finish_reason: null }]));
    expect(failing.failed()).toBe(false);
    failing.push(frame({ error: { message: 'overloaded', type: 'server_error' } }));
    expect(failing.failed()).toBe(true);
    const cut = createChatPassThroughMeter(true);
    cut.push(chunk([{ index: 0, delta: { content: 'a' }, finish_reason: null }]));
    expect(cut.end().error).toBe(true);
  });
});
