/** Stream decoder and pass-through meter cases the captures do not cover. */
import { messagesCodec } from '../../../../src/protocols/messages';
import { assembleStream, decodeContext } from './helpers';

function sse(...events: Array<Record<string, unknown>>): string {
  return events.map((event) => `event: ${String(event.type)}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}

const START = {
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], usage: { input_tokens: 10, output_tokens: 1 } },
};
const STOP = { type: 'message_stop' };
const delta = (stopReason: string, extra: Record<string, unknown> = {}) => ({
  type: 'message_delta',
  delta: { stop_reason: stopReason, stop_sequence: null, ...extra },
  usage: { output_tokens: 9 },
});

function decode(text: string, jsonToolName?: string) {
  const decoder = messagesCodec.upstream.createStreamDecoder(decodeContext(jsonToolName ? { jsonToolName } : {}));
  return assembleStream([...decoder.push(text), ...decoder.end()]);
}

describe('Messages stream decoder', () => {
  it('reads redacted thinking as a reasoning block with a redacted opaque', () => {
    const stream = decode(
      sse(
        START,
        { type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'EmwKAhgB' } },
        { type: 'content_block_stop', index: 0 },
        delta('end_turn'),
        STOP,
      ),
    );
    expect(stream.parts).toEqual([{ type: 'reasoning', text: '', redacted: { origin: 'messages', value: 'EmwKAhgB' } }]);
  });

  it('uses the input of content_block_start when no delta follows', () => {
    const stream = decode(
      sse(
        START,
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } } },
        { type: 'content_block_stop', index: 0 },
        delta('tool_use'),
        STOP,
      ),
    );
    expect(stream.parts).toEqual([{ type: 'tool_call', id: 'toolu_1', name: 'f', argumentsJson: '{"a":1}' }]);
    expect(stream.finish).toEqual({ unified: 'tool_calls', raw: 'tool_use' });
  });

  it('answers {} for a forced json tool that streamed no input', () => {
    const stream = decode(
      sse(
        START,
        { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_1', name: 'json', input: {} } },
        { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
        { type: 'content_block_stop', index: 0 },
        delta('tool_use'),
        STOP,
      ),
      'json',
    );
    expect(stream.parts).toEqual([{ type: 'text', text: '{}' }]);
    expect(stream.finish).toEqual({ unified: 'stop', raw: 'tool_use' });
  });

  it('keeps the stop sequence and merges usage across message_start and message_delta', () => {
    const stream = decode(
      sse(
        { ...START, message: { ...START.message, usage: { input_tokens: 10, cache_read_input_tokens: 4, output_tokens: 1 } } },
        { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
        { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'a' } },
        { type: 'content_block_stop', index: 0 },
        {
          type: 'message_delta',
          delta: { stop_reason: 'stop_sequence', stop_sequence: '###' },
          usage: { output_tokens: 9, cache_creation_input_tokens: 2 },
        },
        STOP,
      ),
    );
    expect(stream.finish).toEqual({ unified: 'stop_sequence', raw: 'stop_sequence', stopSequence: '###' });
    expect(stream.usage).toEqual({ inputTokens: 10, cacheReadTokens: 4, cacheWriteTokens: 2, outputTokens: 9, reasoningTokens: 0 });
  });

  it.each([
    ['pause_turn', 'pause'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'context_exceeded'],
    ['brand_new_reason', 'other'],
  ])('maps stop reason %s to %s', (raw, unified) => {
    expect(decode(sse(START, delta(raw), STOP)).finish).toEqual({ unified, raw });
  });

  it('starts the stream itself when message_start is missing, and reads frames without event names', () => {
    const text = [
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: 'hi' } },
      { type: 'content_block_stop', index: 0 },
      delta('end_turn'),
      STOP,
    ]
      .map((event) => `data: ${JSON.stringify(event)}\n\n`)
      .join('');
    const stream = decode(text);
    expect(stream.id).toBe('msg_test1');
    expect(stream.parts).toEqual([{ type: 'text', text: 'hi' }]);
    expect(stream.error).toBeUndefined();
  });

  it('yields an error after a finish when message_stop never came', () => {
    const stream = decode(sse(START, delta('end_turn')));
    expect(stream.finish?.unified).toBe('stop');
    expect(stream.error?.message).toBe('the upstream stream ended before message_stop');
  });
});

describe('Messages pass-through meter', () => {
  it('reports a mid-stream error event as an error with the usage seen so far', () => {
    const meter = messagesCodec.createPassThroughMeter(true);
    meter.push(sse(START));
    meter.push('event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n');
    expect(meter.end()).toEqual({
      usage: { inputTokens: 10, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 1, reasoningTokens: 0 },
      finish: null,
      error: true,
    });
  });

  it('reports an error body or an unreadable body as an error', () => {
    const errorBody = messagesCodec.createPassThroughMeter(false);
    errorBody.push('{"type":"error","error":{"type":"api_error","message":"x"}}');
    expect(errorBody.end().error).toBe(true);
    const cut = messagesCodec.createPassThroughMeter(false);
    cut.push('{"id":"msg_1","usage":{"input_');
    expect(cut.end().error).toBe(true);
  });
});
