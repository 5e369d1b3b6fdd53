/**
 * Issue 25 item 8: a gemini-3 tool call's thought signature must survive the client's round trip,
 * but OpenAI caps a call id at 64 characters. The Chat and Responses ids the gateway shows fit the
 * limit; the signature waits in the gateway's own store (Redis, shared by API processes) and goes
 * back to Gemini as it came, never replaced by Google's placeholder, even when the replay reaches
 * another API process.
 */
import { startTestGateway, type ApiInstance, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

const MODEL = 'gemini-3-pro-preview';
const PLACEHOLDER = 'skip_thought_signature_validator';
const PARAMETERS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

describe('gemini-3 call ids fit 64 characters and keep their thought signature', () => {
  let gateway: TestGateway;
  let other: ApiInstance;
  beforeAll(async () => {
    gateway = await startTestGateway();
    other = await gateway.startSecondInstance();
  });
  afterAll(async () => {
    await other?.close();
    await gateway?.close();
  });

  async function post(base: string, path: string, body: unknown): Promise<any> {
    const response = await fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.key}` },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return response.json();
  }

  /** The thought signatures of the function calls in the last request Gemini received. */
  function signaturesSent(): string[] {
    const last = gateway.sim.requests.filter((entry) => entry.protocol === 'generate-content').at(-1)!;
    const contents = (last.body as { contents: Array<{ parts: Array<{ functionCall?: unknown; thoughtSignature?: string }> }> }).contents;
    return contents
      .flatMap((content) => content.parts)
      .filter((part) => part.functionCall !== undefined)
      .map((part) => part.thoughtSignature ?? '');
  }

  it('Responses: call_id within 64 characters, the real signature back to Gemini from another process', async () => {
    const tools = [{ type: 'function', name: 'get_weather', parameters: PARAMETERS }];
    const first = await post(gateway.url, '/v1/responses', { model: MODEL, store: false, tools, input: 'Use get_weather please' });
    const call = first.output.find((item: { type: string }) => item.type === 'function_call');
    expect(call.call_id.length).toBeLessThanOrEqual(64);
    await post(other.url, '/v1/responses', {
      model: MODEL,
      store: false,
      tools,
      input: [
        { role: 'user', content: 'Use get_weather please' },
        ...first.output,
        { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
      ],
    });
    const sent = signaturesSent();
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toBe(PLACEHOLDER);
    expect(sent[0].length).toBeGreaterThan(0);
  });

  it('Chat: tool_call id within 64 characters, the real signature back to Gemini from another process', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: PARAMETERS } }];
    const first = await post(gateway.url, '/v1/chat/completions', {
      model: MODEL,
      tools,
      messages: [{ role: 'user', content: 'Use get_weather please' }],
    });
    const message = first.choices[0].message;
    const id = message.tool_calls[0].id as string;
    expect(id.length).toBeLessThanOrEqual(64);
    await post(other.url, '/v1/chat/completions', {
      model: MODEL,
      tools,
      messages: [{ role: 'user', content: 'Use get_weather please' }, message, { role: 'tool', tool_call_id: id, content: 'sunny' }],
    });
    const sent = signaturesSent();
    expect(sent).toHaveLength(1);
    expect(sent[0]).not.toBe(PLACEHOLDER);
  });
});
