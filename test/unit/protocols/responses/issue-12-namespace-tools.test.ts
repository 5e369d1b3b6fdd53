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
      type: 'namespace', name: 'collab', description: 'sub-agents',
      tools: [
        { type: 'function', name: 'spawn_agent', description: 'start one', parameters: { type: 'object', properties: { task: { type: 'string' } }, required: ['task'] } },
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
    const encoded = messagesCodec.upstream.encodeRequest(request, { upstreamModel: 'claude-sonnet-4-5', maxOutputTokens: 64_000, nativeJsonSchema: false }, testContext());
    expect((encoded.body.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(['exec_command', 'collab__spawn_agent', 'collab__wait_agent']);
    expect(encoded.warnings).toEqual([expect.objectContaining({ message: expect.stringContaining('web_search') })]);
  });

  it('shows a call of a member as namespace + name in the complete answer', () => {
    const upstream = {
      id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', stop_reason: 'tool_use', stop_sequence: null,
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'collab__spawn_agent', input: { task: 'x' } }],
      usage: { input_tokens: 10, output_tokens: 5 },
    };
    const ir = messagesCodec.upstream.decodeResponse(upstream, decodeContext());
    const body = responsesCodec.inbound.encodeResponse(ir, { model: 'claude-sonnet-4-5', request }, testContext());
    expect(body.output).toEqual([expect.objectContaining({ type: 'function_call', namespace: 'collab', name: 'spawn_agent', arguments: '{"task":"x"}' })]);
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
    const frames = [...events.flatMap((event) => encoder.push(event)), ...encoder.end()].flatMap((chunk) => parser.push(chunk)).map((f) => JSON.parse(f.data));
    const done = frames.find((frame) => frame.type === 'response.output_item.done');
    expect(done.item).toMatchObject({ type: 'function_call', namespace: 'collab', name: 'spawn_agent' });
    const added = frames.find((frame) => frame.type === 'response.output_item.added');
    expect(added.item).toMatchObject({ namespace: 'collab', name: 'spawn_agent' });
  });

  it('reads the tools of additional_tools input items (Codex\'s code mode) like tools; a custom tool inside a namespace is reported', () => {
    const decoded = responsesCodec.inbound.decodeRequest({
      model: 'claude-sonnet-4-5', store: false,
      input: [
        { type: 'additional_tools', role: 'developer', tools: [{ type: 'namespace', name: 'functions', tools: [
          { type: 'custom', name: 'exec', format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' } },
          { type: 'function', name: 'wait', parameters: { type: 'object', properties: {} } },
        ] }] },
        { role: 'user', content: 'Use exec' },
      ],
    }, testContext());
    expect(decoded.request.tools.map((tool) => tool.name)).toEqual(['functions__wait']);
    expect(decoded.request.turns).toEqual([{ role: 'user', parts: [{ type: 'text', text: 'Use exec' }] }]);
    expect(decoded.warnings).toEqual([expect.objectContaining({ field: 'input[0].tools[0].tools[0]' })]);
  });
});
