/**
 * Issue 12 defect 8: Codex's `namespace` tools cross to a translated family as ordinary function
 * tools and come back as namespace + name; only tools that cannot cross are dropped, with a warning.
 */
import type { IrStreamEvent } from '../../../../src/ir/stream-event';
import { messagesCodec } from '../../../../src/protocols/messages';
import { responsesCodec } from '../../../../src/protocols/responses';
import { SseParser } from '../../../../src/protocols/shared/sse-parser';
import { decodeContext, testContext } from '../messages/helpers';

/** What Codex sends: a namespace of function tools beside its own function tools and a hosted one. */
const CODEX_BODY = {
  model: 'claude-sonnet-4-5',
  store: false,
  input: [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'spawn a helper' }] },
    { type: 'function_call', call_id: 'call_1', namespace: 'collab', name: 'wait_agent', arguments: '{"id":"a1"}' },
    { type: 'function_call_output', call_id: 'call_1', output: 'done' },
  ],
  tools: [
    { type: 'function', name: 'exec_command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } },
    {
      type: 'namespace',
      name: 'collab',
      description: 'sub-agents',
      tools: [
        {
          type: 'function',
          name: 'spawn_agent',
          description: 'start one',
          parameters: { type: 'object', properties: { task: { type: 'string' } }, required: ['task'] },
        },
        { type: 'function', name: 'wait_agent', parameters: { type: 'object', properties: { id: { type: 'string' } } } },
      ],
    },
    { type: 'web_search' },
  ],
};

describe('issue 12 defect 8: Codex namespace tools are flattened and restored', () => {
  const { request, warnings } = responsesCodec.inbound.decodeRequest(CODEX_BODY, testContext());

  it('flattens the namespace into function tools and its calls into their flat names', () => {
    expect(request.tools.map((tool) => tool.name)).toEqual(['exec_command', 'collab__spawn_agent', 'collab__wait_agent']);
    expect(request.tools[1]).toMatchObject({ description: 'start one', namespace: { name: 'collab', member: 'spawn_agent' } });
    const call = request.turns[1]!.parts[0]!;
    expect(call).toMatchObject({ type: 'tool_call', name: 'collab__wait_agent' });
    expect(warnings).toEqual([]);
  });

  it('reaches a Messages upstream as tools; only web_search is dropped, with a warning', () => {
    const encoded = messagesCodec.upstream.encodeRequest(
      request,
      { upstreamModel: 'claude-sonnet-4-5', maxOutputTokens: 64_000, nativeJsonSchema: false },
      testContext(),
    );
    expect((encoded.body.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual([
      'exec_command',
      'collab__spawn_agent',
      'collab__wait_agent',
    ]);
    expect(encoded.warnings).toEqual([expect.objectContaining({ message: expect.stringContaining('web_search') })]);
  });

  it('shows a call of a member as namespace + name in the complete answer', () => {
    const upstream = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5',
      stop_reason: 'tool_use',
      stop_sequence: null,
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'collab__spawn_agent', input: { task: 'x' } }],
      usage: { input_tokens: 10, output_tokens: 5 },
    };
    const ir = messagesCodec.upstream.decodeResponse(upstream, decodeContext());
    const body = responsesCodec.inbound.encodeResponse(ir, { model: 'claude-sonnet-4-5', request }, testContext());
    expect(body.output).toEqual([
      expect.objectContaining({ type: 'function_call', namespace: 'collab', name: 'spawn_agent', arguments: '{"task":"x"}' }),
    ]);
  });

  it('shows it so in the stream too', () => {
    const events: IrStreamEvent[] = [
      { type: 'start', id: 'msg_1', model: 'claude-sonnet-4-5' },
      { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'toolu_1', name: 'collab__spawn_agent' } },
      { type: 'tool_args_delta', index: 0, json: '{"task":"x"}' },
      { type: 'block_end', index: 0 },
      { type: 'finish', finish: { unified: 'tool_calls', raw: 'tool_use' } },
    ];
    const encoder = responsesCodec.inbound.createStreamEncoder({ model: 'claude-sonnet-4-5', request }, testContext());
    const parser = new SseParser();
    const frames = [...events.flatMap((event) => encoder.push(event)), ...encoder.end()]
      .flatMap((chunk) => parser.push(chunk))
      .map((f) => JSON.parse(f.data));
    const done = frames.find((frame) => frame.type === 'response.output_item.done');
    expect(done.item).toMatchObject({ type: 'function_call', namespace: 'collab', name: 'spawn_agent' });
    const added = frames.find((frame) => frame.type === 'response.output_item.added');
    expect(added.item).toMatchObject({ namespace: 'collab', name: 'spawn_agent' });
  });

  describe("custom (freeform) tools and additional_tools items (Codex's code mode)", () => {
    const exec = {
      type: 'custom',
      name: 'exec',
      description: 'run JavaScript',
      format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' },
    };
    const decoded = responsesCodec.inbound.decodeRequest(
      {
        model: 'claude-sonnet-4-5',
        store: false,
        input: [
          {
            type: 'additional_tools',
            role: 'developer',
            tools: [
              {
                type: 'namespace',
                name: 'functions',
                tools: [exec, { type: 'function', name: 'wait', parameters: { type: 'object', properties: {} } }],
              },
            ],
          },
          { role: 'user', content: 'Use exec' },
          { type: 'custom_tool_call', call_id: 'call_9', namespace: 'functions', name: 'exec', input: 'ls()' },
          { type: 'custom_tool_call_output', call_id: 'call_9', output: 'a.txt' },
        ],
      },
      testContext(),
    );

    it('reads them like tools: a custom tool is a function of one string input', () => {
      expect(decoded.request.tools.map((tool) => tool.name)).toEqual(['functions__exec', 'functions__wait']);
      expect(decoded.request.tools[0]).toMatchObject({
        freeform: true,
        namespace: { name: 'functions', member: 'exec' },
        parameters: { required: ['input'] },
      });
      expect(decoded.warnings).toEqual([]);
      expect(decoded.request.turns[1]!.parts[0]).toMatchObject({
        type: 'tool_call',
        name: 'functions__exec',
        argumentsJson: '{"input":"ls()"}',
      });
      expect(decoded.request.turns[2]!.parts[0]).toMatchObject({
        type: 'tool_result',
        callId: 'call_9',
        content: [{ type: 'text', text: 'a.txt' }],
      });
    });

    it('shows the translated call as a custom_tool_call with its raw input, complete and streamed', () => {
      const upstream = {
        id: 'msg_2',
        type: 'message',
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        stop_reason: 'tool_use',
        stop_sequence: null,
        content: [{ type: 'tool_use', id: 'toolu_2', name: 'functions__exec', input: { input: 'console.log(1)' } }],
        usage: { input_tokens: 10, output_tokens: 5 },
      };
      const ir = messagesCodec.upstream.decodeResponse(upstream, decodeContext());
      const body = responsesCodec.inbound.encodeResponse(ir, { model: 'claude-sonnet-4-5', request: decoded.request }, testContext());
      expect(body.output).toEqual([
        expect.objectContaining({ type: 'custom_tool_call', namespace: 'functions', name: 'exec', input: 'console.log(1)' }),
      ]);

      const encoder = responsesCodec.inbound.createStreamEncoder({ model: 'claude-sonnet-4-5', request: decoded.request }, testContext());
      const events: IrStreamEvent[] = [
        { type: 'start', id: 'msg_2', model: 'claude-sonnet-4-5' },
        { type: 'block_start', index: 0, block: { kind: 'tool_call', id: 'toolu_2', name: 'functions__exec' } },
        { type: 'tool_args_delta', index: 0, json: '{"input":"console.' },
        { type: 'tool_args_delta', index: 0, json: 'log(1)"}' },
        { type: 'block_end', index: 0 },
        { type: 'finish', finish: { unified: 'tool_calls', raw: 'tool_use' } },
      ];
      const parser = new SseParser();
      const frames = [...events.flatMap((event) => encoder.push(event)), ...encoder.end()]
        .flatMap((chunk) => parser.push(chunk))
        .map((f) => JSON.parse(f.data));
      expect(frames.some((frame) => frame.type === 'response.function_call_arguments.delta')).toBe(false);
      expect(frames.find((frame) => frame.type === 'response.custom_tool_call_input.done')).toMatchObject({ input: 'console.log(1)' });
      expect(frames.find((frame) => frame.type === 'response.output_item.done').item).toMatchObject({
        type: 'custom_tool_call',
        name: 'exec',
        namespace: 'functions',
        input: 'console.log(1)',
      });
    });
  });
});
