/**
 * Issue 25 item 5: native Messages pass-through forwards `anthropic-version` as sent (2023-06-01 for
 * a client that sent only `messages-version`), every `anthropic-*` and `x-claude-code-*` header;
 * Codex's `session_id`, `x-codex-*` and `OpenAI-Beta` reach a native Responses upstream. The client's
 * credential and hop-by-hop headers never do; a translated call forwards none of them.
 */
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

describe('the headers client vendors require reach a native upstream', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway();
  });
  afterAll(async () => {
    await gateway?.close();
  });

  async function send(path: string, headers: Record<string, string>, body: unknown): Promise<Record<string, string>> {
    gateway.sim.clearRequests();
    const response = await fetch(gateway.url + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    await response.text();
    const entries = gateway.sim.requests;
    expect(entries).toHaveLength(1);
    return entries[0].headers;
  }

  const messagesBody = { model: 'claude-sonnet-4-5', max_tokens: 32, messages: [{ role: 'user', content: 'Hello' }] };

  it('Messages: anthropic-version as sent, every anthropic-* and x-claude-code-* header, never the client key', async () => {
    const vendor = {
      'anthropic-version': '2026-10-21',
      'anthropic-beta': 'interleaved-thinking-2025-05-14',
      'anthropic-workspace-id': 'wrkspc_01abc',
      'anthropic-dangerous-direct-browser-access': 'true',
      'x-claude-code-session-id': 'session-123',
      'x-claude-code-agent-id': 'agent-7',
    };
    const upstream = await send('/v1/messages', { 'x-api-key': gateway.key, 'x-stainless-lang': 'js', ...vendor }, messagesBody);
    expect(upstream).toMatchObject({ ...vendor, 'x-api-key': 'sim-key' });
    expect(upstream['x-stainless-lang']).toBeUndefined();
    expect(JSON.stringify(upstream)).not.toContain(gateway.key);
  });

  it('Messages: a client that sent only messages-version gets 2023-06-01 upstream', async () => {
    const upstream = await send('/v1/messages', { authorization: `Bearer ${gateway.key}`, 'messages-version': '2024-01-01' }, messagesBody);
    expect(upstream['anthropic-version']).toBe('2023-06-01');
    expect(upstream.authorization).toBeUndefined();
  });

  it("Responses: Codex's session_id, x-codex-* and OpenAI-Beta reach a native upstream, the client key never", async () => {
    const upstream = await send(
      '/v1/responses',
      {
        authorization: `Bearer ${gateway.key}`,
        session_id: 'codex-session-1',
        'x-codex-turn-metadata': '{"turn":1}',
        'openai-beta': 'responses=experimental',
        connection: 'keep-alive',
      },
      { model: 'gpt-5', input: 'Hello', store: false },
    );
    expect(upstream).toMatchObject({
      session_id: 'codex-session-1',
      'x-codex-turn-metadata': '{"turn":1}',
      'openai-beta': 'responses=experimental',
      authorization: 'Bearer sim-key',
    });
    expect(JSON.stringify(upstream)).not.toContain(gateway.key);
  });

  it('a translated call forwards none of them', async () => {
    const upstream = await send(
      '/v1/messages',
      {
        'x-api-key': gateway.key,
        'anthropic-version': '2026-10-21',
        'anthropic-workspace-id': 'wrkspc_01abc',
        'x-claude-code-session-id': 's',
      },
      { ...messagesBody, model: 'gpt-4.1' },
    );
    expect(upstream['anthropic-workspace-id']).toBeUndefined();
    expect(upstream['x-claude-code-session-id']).toBeUndefined();
  });
});
