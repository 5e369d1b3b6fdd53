/**
 * Issue 12, the simulator's part: it decides tool calls from the user's own last text only, its
 * model limits and names follow the catalog (published limits, aliases), it refuses `max_tokens` for
 * gpt-5 in Chat as the real API does, serves the three counting endpoints, and accepts Claude Code's
 * `tool_reference` blocks.
 */
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { ANTHROPIC_HEADERS, GOOGLE_HEADERS, OPENAI_HEADERS, post } from './sim-support';

let sim: Simulator;
beforeAll(async () => {
  sim = await startSimulator();
});
afterAll(async () => sim.close());

const TOOLS = [
  { name: 'Agent', description: 'spawn a sub-agent', input_schema: { type: 'object', properties: { prompt: { type: 'string' } } } },
  { name: 'Skill', description: 'run a skill', input_schema: { type: 'object', properties: { name: { type: 'string' } } } },
  { name: 'Bash', description: 'run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } },
];
const REMINDER = '<system-reminder>You can use the Agent tool and the Skill tool. Call Agent for big tasks.</system-reminder>';

function messages(content: unknown, extra: Record<string, unknown> = {}) {
  return post(
    sim,
    '/v1/messages',
    { model: 'claude-sonnet-4-5', max_tokens: 1000, tools: TOOLS, messages: [{ role: 'user', content }], ...extra },
    ANTHROPIC_HEADERS,
  );
}

describe("issue 12: the simulator decides tools from the user's own text", () => {
  it('never calls a tool named only in a <system-reminder> block', async () => {
    const answer = await messages([
      { type: 'text', text: REMINDER },
      { type: 'text', text: 'Reply to ping-7361 please' },
    ]);
    expect(answer.status).toBe(200);
    const body = answer.json as { stop_reason: string; content: Array<{ type: string; text?: string }> };
    expect(body.stop_reason).toBe('end_turn');
    expect(body.content).toEqual([{ type: 'text', text: 'Echo: Reply to ping-7361 please' }]);
  });

  it('ignores a reminder inside the same text block, and system text', async () => {
    const answer = await messages(`${REMINDER}\nSay hi`, { system: 'Use the Agent tool and the Skill tool often.' });
    expect((answer.json as { stop_reason: string }).stop_reason).toBe('end_turn');
  });

  it('still calls a tool the user names', async () => {
    const answer = await messages([
      { type: 'text', text: REMINDER },
      { type: 'text', text: 'Use Bash to list the files' },
    ]);
    const body = answer.json as { stop_reason: string; content: Array<{ type: string; name?: string }> };
    expect(body.stop_reason).toBe('tool_use');
    expect(body.content.filter((block) => block.type === 'tool_use').map((block) => block.name)).toEqual(['Bash']);
  });

  it("accepts a tool_reference block in a tool result (Claude Code's tool search)", async () => {
    const answer = await post(
      sim,
      '/v1/messages',
      {
        model: 'claude-sonnet-4-5',
        max_tokens: 100,
        tools: TOOLS,
        messages: [
          { role: 'user', content: 'find a tool' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'x' } }] },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'tool_reference', tool_name: 'Skill' }] }],
          },
        ],
      },
      ANTHROPIC_HEADERS,
    );
    expect(answer.status).toBe(200);
  });
});

describe("issue 12: the simulator's limits and names follow the catalog", () => {
  it('lets claude-sonnet-4-5 write 64,000 tokens, not one more, under its dated name too', async () => {
    const ok = await post(
      sim,
      '/v1/messages',
      { model: 'claude-sonnet-4-5-20250929', max_tokens: 64_000, messages: [{ role: 'user', content: 'hi' }] },
      ANTHROPIC_HEADERS,
    );
    expect(ok.status).toBe(200);
    const over = await post(
      sim,
      '/v1/messages',
      { model: 'claude-sonnet-4-5', max_tokens: 64_001, messages: [{ role: 'user', content: 'hi' }] },
      ANTHROPIC_HEADERS,
    );
    expect(over.status).toBe(400);
  });

  it('serves the names Gemini CLI asks for by default', async () => {
    for (const model of ['gemini-3.1-pro-preview', 'gemini-3.5-flash-lite', 'gemini-3-flash-preview', 'gemini-2.5-flash-lite']) {
      const answer = await post(
        sim,
        `/v1beta/models/${model}:generateContent`,
        { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
        GOOGLE_HEADERS,
      );
      expect([model, answer.status]).toEqual([model, 200]);
    }
  });

  it('refuses Chat max_tokens for gpt-5 as the real API does', async () => {
    const answer = await post(
      sim,
      '/v1/chat/completions',
      { model: 'gpt-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] },
      OPENAI_HEADERS,
    );
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.json)).toContain("Use 'max_completion_tokens' instead");
    const ok = await post(
      sim,
      '/v1/chat/completions',
      { model: 'gpt-5', max_completion_tokens: 100_000, messages: [{ role: 'user', content: 'hi' }] },
      OPENAI_HEADERS,
    );
    expect(ok.status).toBe(200);
  });
});

describe("issue 12: the simulator's counting endpoints", () => {
  it('Messages count_tokens counts what inference bills', async () => {
    const body = { model: 'claude-haiku-4-5', system: 'be kind', messages: [{ role: 'user', content: 'How many tokens is this?' }] };
    const counted = await post(sim, '/v1/messages/count_tokens', body, ANTHROPIC_HEADERS);
    const billed = await post(sim, '/v1/messages', { ...body, max_tokens: 10 }, ANTHROPIC_HEADERS);
    expect(counted.json).toEqual({ input_tokens: (billed.json as { usage: { input_tokens: number } }).usage.input_tokens });
  });

  it('Generate-Content countTokens, with contents or a whole request', async () => {
    const contents = [{ role: 'user', parts: [{ text: 'How many tokens is this?' }] }];
    const billed = await post(sim, '/v1beta/models/gemini-2.5-flash:generateContent', { contents }, GOOGLE_HEADERS);
    const expected = (billed.json as { usageMetadata: { promptTokenCount: number } }).usageMetadata.promptTokenCount;
    const plain = await post(sim, '/v1beta/models/gemini-2.5-flash:countTokens', { contents }, GOOGLE_HEADERS);
    expect((plain.json as { totalTokens: number }).totalTokens).toBe(expected);
    const wrapped = await post(
      sim,
      '/v1beta/models/gemini-2.5-flash:countTokens',
      { generateContentRequest: { model: 'models/gemini-2.5-flash', contents } },
      GOOGLE_HEADERS,
    );
    expect((wrapped.json as { totalTokens: number }).totalTokens).toBe(expected);
  });

  it('Responses input_tokens', async () => {
    const body = { model: 'gpt-5', input: 'How many tokens is this?', instructions: 'be kind' };
    const counted = await post(sim, '/v1/responses/input_tokens', body, OPENAI_HEADERS);
    const billed = await post(sim, '/v1/responses', body, OPENAI_HEADERS);
    expect(counted.json).toEqual({
      object: 'response.input_tokens',
      input_tokens: (billed.json as { usage: { input_tokens: number } }).usage.input_tokens,
    });
  });

  it('refuses an unknown model as inference does', async () => {
    const answer = await post(
      sim,
      '/v1/messages/count_tokens',
      { model: 'nope', messages: [{ role: 'user', content: 'x' }] },
      ANTHROPIC_HEADERS,
    );
    expect(answer.status).toBe(404);
  });
});

describe("issue 12: Codex's tool shapes on the simulator's Responses API", () => {
  const exec = {
    type: 'custom',
    name: 'exec',
    description: 'run JavaScript',
    format: { type: 'grammar', syntax: 'lark', definition: 'start: /.+/' },
  };
  const wait = {
    type: 'function',
    name: 'wait_agent',
    parameters: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  };

  it('calls a namespace member as namespace + name', async () => {
    const answer = await post(
      sim,
      '/v1/responses',
      {
        model: 'gpt-5',
        store: false,
        input: 'Use wait_agent now',
        tools: [{ type: 'namespace', name: 'collaboration', tools: [wait] }],
      },
      OPENAI_HEADERS,
    );
    expect(answer.status).toBe(200);
    const calls = (answer.json as { output: Array<Record<string, unknown>> }).output.filter((item) => item.type === 'function_call');
    expect(calls).toEqual([expect.objectContaining({ namespace: 'collaboration', name: 'wait_agent', arguments: '{"id":"example"}' })]);
  });

  it('offers the tools of additional_tools items and calls a custom tool with a string input', async () => {
    const additional = {
      type: 'additional_tools',
      role: 'developer',
      tools: [{ type: 'namespace', name: 'functions', tools: [exec, wait] }],
    };
    const first = await post(
      sim,
      '/v1/responses',
      { model: 'gpt-6.1-sol', store: false, input: [additional, { role: 'user', content: 'Use exec to look around' }] },
      OPENAI_HEADERS,
    );
    expect(first.status).toBe(200);
    const call = (first.json as { output: Array<Record<string, unknown>> }).output.find((item) => item.type === 'custom_tool_call');
    expect(call).toMatchObject({ name: 'exec', namespace: 'functions', input: 'example' });
    const second = await post(
      sim,
      '/v1/responses',
      {
        model: 'gpt-6.1-sol',
        store: false,
        input: [
          additional,
          { role: 'user', content: 'Use exec to look around' },
          { type: 'custom_tool_call', call_id: call!.call_id, name: 'exec', namespace: 'functions', input: 'example' },
          { type: 'custom_tool_call_output', call_id: call!.call_id, output: 'example is not defined' },
        ],
      },
      OPENAI_HEADERS,
    );
    const message = (second.json as { output: Array<{ type: string; content?: Array<{ text: string }> }> }).output.find(
      (item) => item.type === 'message',
    );
    expect(message?.content?.[0]?.text).toContain('example is not defined');
  });

  it('accepts a replayed reasoning item followed by its custom tool call', async () => {
    const additional = { type: 'additional_tools', role: 'developer', tools: [exec] };
    const first = await post(
      sim,
      '/v1/responses',
      {
        model: 'gpt-5',
        store: false,
        include: ['reasoning.encrypted_content'],
        reasoning: { effort: 'low' },
        input: [additional, { role: 'user', content: 'Use exec to look around' }],
      },
      OPENAI_HEADERS,
    );
    const output = (first.json as { output: Array<Record<string, unknown>> }).output;
    expect(output.map((item) => item.type)).toEqual(['reasoning', 'custom_tool_call']);
    const call = output[1]!;
    const second = await post(
      sim,
      '/v1/responses',
      {
        model: 'gpt-5',
        store: false,
        input: [
          additional,
          { role: 'user', content: 'Use exec to look around' },
          ...output,
          { type: 'custom_tool_call_output', call_id: call.call_id, output: [{ type: 'input_text', text: 'example is not defined' }] },
        ],
      },
      OPENAI_HEADERS,
    );
    expect(second.status).toBe(200);
    expect(second.text).toContain('example is not defined');
  });

  it('streams a custom tool call', async () => {
    const answer = await post(
      sim,
      '/v1/responses',
      { model: 'gpt-5', store: false, stream: true, input: 'Use exec please', tools: [exec] },
      OPENAI_HEADERS,
    );
    expect(answer.text).toContain('response.custom_tool_call_input.done');
  });
});
