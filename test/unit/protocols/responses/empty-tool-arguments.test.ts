/**
 * Regression, issue 9 (capture `messages/anthropic-tool-no-args`): a tool call without arguments
 * (Messages streams `partial_json: ""`) reached Responses clients as `"arguments": ""`, which their
 * `JSON.parse` rejects. It must be `"{}"`, in the complete answer and in the stream, where it goes
 * out as one delta so the deltas still add up to the final `arguments`.
 */
import type { IrResponse } from '../../../../src/ir/response';
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { messagesCodec } from '../../../../src/protocols/messages';
import { responsesCodec } from '../../../../src/protocols/responses';
import { decodeContext, deterministicContext, sdkClient, sseResponse } from '../../../support/sdk-responses';

const OPTIONS = { model: 'gateway-model', sse: true, includeUsage: true };
const USAGE = { inputTokens: 565, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 48, reasoningTokens: 0 };

/** The tool part of the recorded Messages stream, as its provider sent it. */
const MESSAGES_FRAMES = [
  {
    type: 'message_start',
    message: {
      id: 'msg_01',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      content: [],
      usage: { input_tokens: 565, output_tokens: 7 },
    },
  },
  { type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'toolu_01', name: 'updateIssueList', input: {} } },
  { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: '' } },
  { type: 'content_block_stop', index: 0 },
  { type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: 565, output_tokens: 48 } },
  { type: 'message_stop' },
]
  .map((frame) => `event: ${frame.type}\ndata: ${JSON.stringify(frame)}\n\n`)
  .join('');

function toolEvents(...deltas: string[]): IrStreamEvent[] {
  return [
    { type: 'start', id: 'up_1', model: 'upstream-model' },
    { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'toolu_01', name: 'updateIssueList' } },
    ...deltas.map((json): IrStreamEvent => ({ type: 'tool_args_delta', index: 0, json })),
    { type: 'block_end', index: 0 },
    { type: 'finish', finish: { unified: 'tool_calls', raw: 'tool_use' } },
    { type: 'usage', usage: USAGE },
  ];
}

interface Frame {
  type: string;
  delta?: string;
  arguments?: string;
  item?: { arguments?: string };
  response?: { output?: Array<{ arguments?: string }> };
}

function encodeStream(events: IrStreamEvent[]): { wire: string[]; frames: Frame[] } {
  const encoder = responsesCodec.inbound.createStreamEncoder(OPTIONS, deterministicContext());
  const wire = [...events.flatMap((event) => encoder.push(event)), ...encoder.end()];
  const frames = wire.map((text) => JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? 'null') as Frame);
  return { wire, frames };
}

/** Every place a streamed call's arguments show: the deltas joined, `.done`, the done item, the terminal response. */
function streamedArguments(frames: Frame[]): Record<string, string | undefined> {
  return {
    deltas: frames
      .filter((frame) => frame.type === 'response.function_call_arguments.delta')
      .map((frame) => frame.delta)
      .join(''),
    done: frames.find((frame) => frame.type === 'response.function_call_arguments.done')?.arguments,
    item: frames.find((frame) => frame.type === 'response.output_item.done')?.item?.arguments,
    terminal: frames.find((frame) => frame.type === 'response.completed')?.response?.output?.[0]?.arguments,
  };
}

describe('Responses encoders: a tool call without arguments shows "{}"', () => {
  it.each<[string, string]>([
    ['no arguments', ''],
    ['blank arguments', '  '],
  ])('in the complete answer (%s)', (_name, argumentsJson) => {
    const response: IrResponse = {
      id: 'up_1',
      model: 'upstream-model',
      usage: USAGE,
      finish: { unified: 'tool_calls', raw: 'tool_use' },
      parts: [{ type: 'tool_call', id: 'toolu_01', name: 'updateIssueList', argumentsJson }],
    };
    const body = responsesCodec.inbound.encodeResponse(response, OPTIONS, deterministicContext());
    expect(body.output).toEqual([
      { type: 'function_call', id: 'fc_1', call_id: 'toolu_01', name: 'updateIssueList', arguments: '{}', status: 'completed' },
    ]);
  });

  it.each<[string, string[]]>([
    ['no delta', []],
    ['an empty delta', ['']],
  ])('in the stream, as one delta (%s)', (_name, deltas) => {
    const { frames } = encodeStream(toolEvents(...deltas));
    expect(frames.filter((frame) => frame.type === 'response.function_call_arguments.delta')).toHaveLength(1);
    expect(streamedArguments(frames)).toEqual({ deltas: '{}', done: '{}', item: '{}', terminal: '{}' });
  });

  it('leaves streamed arguments alone (no "{}" appended)', () => {
    const { frames } = encodeStream(toolEvents('{"a":', '1}'));
    expect(streamedArguments(frames)).toEqual({ deltas: '{"a":1}', done: '{"a":1}', item: '{"a":1}', terminal: '{"a":1}' });
  });

  it('gives the official SDK arguments it can parse, from the recorded Messages frames', async () => {
    const decoder = messagesCodec.upstream.createStreamDecoder(decodeContext());
    const events = [...decoder.push(MESSAGES_FRAMES), ...decoder.end()];
    const { wire } = encodeStream(events);
    const stream = sdkClient(() => sseResponse(wire)).responses.stream({ model: 'gateway-model', input: 'hi' });
    let deltas = '';
    for await (const event of stream) if (event.type === 'response.function_call_arguments.delta') deltas += event.delta;
    const final = await stream.finalResponse();
    const call = final.output.find((item) => item.type === 'function_call');
    expect(call).toMatchObject({ name: 'updateIssueList', call_id: 'toolu_01', arguments: '{}' });
    expect(deltas).toBe('{}');
    expect(JSON.parse(call?.type === 'function_call' ? call.arguments : '')).toEqual({});
  });
});
