/**
 * Issue 25 item 1: Codex's remote compaction through the whole stack. `POST /v1/responses/compact`
 * passes through to a native Responses upstream's compact endpoint, and on translated families the
 * gateway compacts itself (a summary asked of the target model) and answers one compaction item
 * whose carrier only this account can bring back; a `compaction_trigger` input item is answered the
 * same way on `/v1/responses`. Each call is billed as the model call it is.
 */
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

interface Answer {
  status: number;
  json: Record<string, any>;
  headers: Headers;
  text: string;
}

async function post(url: string, body: unknown, key: string): Promise<Answer> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json: Record<string, any> = {};
  try {
    json = JSON.parse(text);
  } catch {
    json = {};
  }
  return { status: response.status, json, headers: response.headers, text };
}

const HISTORY = [
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Remember the codeword zebra-4412 and fix the build.' }] },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Noted. The build fails in parser.ts.' }] },
];

describe('issue 25 item 1: remote compaction', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway.close();
  });

  const compact = (model: string, input: unknown[] = HISTORY, key = gateway.key) =>
    post(`${gateway.url}/v1/responses/compact`, { model, input, instructions: 'You are Codex.' }, key);
  const upstreamCalls = () => gateway.sim.requests.length;

  it('passes POST /v1/responses/compact through to a native Responses upstream unchanged, billed', async () => {
    const before = upstreamCalls();
    const answer = await compact('gpt-5');
    expect(answer.status).toBe(200);
    const upstream = gateway.sim.requests.at(-1)!;
    expect(upstream.path).toBe('/v1/responses/compact');
    expect((upstream.body as Record<string, unknown>).input).toEqual(HISTORY);
    expect(upstreamCalls()).toBe(before + 1);
    expect(answer.json.output).toHaveLength(1);
    expect(answer.json.output[0].type).toBe('compaction');
    expect(answer.json.output[0].encrypted_content).not.toMatch(/^gwcmp1\./);
    expect(answer.json.usage.input_tokens).toBeGreaterThan(0);
    expect(Number(answer.headers.get('x-request-cost-credits'))).toBeGreaterThan(0);
  });

  describe.each(['claude-sonnet-4-5', 'gemini-2.5-flash'])('translated family (%s)', (model) => {
    it('compacts by asking the target model for a summary and answers one sealed compaction item, billed', async () => {
      const answer = await compact(model);
      expect(answer.status).toBe(200);
      expect(answer.json.object).toBe('response.compaction');
      expect(answer.json.output).toHaveLength(1);
      const [item] = answer.json.output;
      expect(item.type).toBe('compaction');
      expect(item.encrypted_content).toMatch(/^gwcmp1\./);
      // Never readable by the client: the conversation is not in the carrier in clear.
      expect(Buffer.from(item.encrypted_content.slice(7), 'base64url').toString('latin1')).not.toContain('zebra-4412');
      const upstream = JSON.stringify(gateway.sim.requests.at(-1)!.body);
      expect(upstream).toContain('zebra-4412');
      expect(upstream).toContain('handoff summary');
      expect(answer.json.usage.output_tokens).toBeGreaterThan(0);
      expect(Number(answer.headers.get('x-request-cost-credits'))).toBeGreaterThan(0);
    });

    it("compacts a history holding tool calls and their outputs, with the tools offered (Codex's shape)", async () => {
      const history = [
        ...HISTORY,
        { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"command":"ls"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'parser.ts\nlexer.ts' },
      ];
      const answer = await post(
        `${gateway.url}/v1/responses/compact`,
        {
          model,
          input: history,
          instructions: 'You are Codex.',
          parallel_tool_calls: false,
          tools: [{ type: 'function', name: 'shell', parameters: { type: 'object', properties: { command: { type: 'string' } } } }],
        },
        gateway.key,
      );
      expect(answer.status).toBe(200);
      expect(answer.json.output.map((item: { type: string }) => item.type)).toEqual(['compaction']);
      expect(JSON.stringify(gateway.sim.requests.at(-1)!.body)).toContain('lexer.ts');
    });

    it('carries the summary in place of the compaction item when it comes back in a later input', async () => {
      const item = (await compact(model)).json.output[0];
      const summaryAsked = JSON.stringify(gateway.sim.requests.at(-1)!.body);
      expect(summaryAsked).toContain('zebra-4412');
      const next = await post(
        `${gateway.url}/v1/responses`,
        {
          model,
          store: false,
          input: [item, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Continue please' }] }],
        },
        gateway.key,
      );
      expect(next.status).toBe(200);
      const upstream = JSON.stringify(gateway.sim.requests.at(-1)!.body);
      expect(upstream).toContain('Summary of the earlier conversation');
      expect(upstream).not.toContain('gwcmp1.');
    });

    it('answers a compaction_trigger input item with exactly one compaction item, streamed as events', async () => {
      const answer = await post(
        `${gateway.url}/v1/responses`,
        {
          model,
          store: false,
          stream: true,
          input: [...HISTORY, { type: 'compaction_trigger' }],
        },
        gateway.key,
      );
      expect(answer.status).toBe(200);
      const events = answer.text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)));
      expect(events.map((event) => event.type)).toEqual([
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.output_item.done',
        'response.completed',
      ]);
      const completed = events.at(-1).response;
      expect(completed.output).toHaveLength(1);
      expect(completed.output[0].type).toBe('compaction');
      expect(completed.usage.total_tokens).toBeGreaterThan(0);
    });
  });

  it('answers a compaction_trigger on a native model with one compaction item as well', async () => {
    const answer = await post(
      `${gateway.url}/v1/responses`,
      { model: 'gpt-5', store: false, input: [...HISTORY, { type: 'compaction_trigger' }] },
      gateway.key,
    );
    expect(answer.status).toBe(200);
    expect(answer.json.output.map((item: { type: string }) => item.type)).toEqual(['compaction']);
  });

  it("refuses an altered carrier in the caller's envelope, free", async () => {
    const item = (await compact('claude-sonnet-4-5')).json.output[0];
    const tail = item.encrypted_content.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA';
    const altered = { ...item, encrypted_content: item.encrypted_content.slice(0, -4) + tail };
    const before = upstreamCalls();
    const answer = await post(`${gateway.url}/v1/responses`, { model: 'claude-sonnet-4-5', store: false, input: [altered] }, gateway.key);
    expect(answer.status).toBe(400);
    expect(answer.json.error.type).toBe('invalid_request_error');
    expect(answer.json.error.message).toContain('compaction item');
    expect(upstreamCalls()).toBe(before);
  });
});
