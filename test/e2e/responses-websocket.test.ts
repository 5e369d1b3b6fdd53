/**
 * Issue 25 item 3: the Responses WebSocket transport (`GET /v1/responses` upgraded), as Codex uses
 * it, through the whole stack: authenticated by the upgrade's headers only; each `response.create`
 * served (native pass-through and translated) with the Responses events as text frames, turns
 * chained on one socket by `previous_response_id`; warm-ups free and without an upstream call;
 * malformed messages answered with an error event on a socket that stays usable; a prompt over the
 * model's context window answered as OpenAI does (`error`, then `response.failed` with
 * `context_length_exceeded`), free, on a socket that stays usable; a deleted key and
 * idleness close the socket with an error event; concurrency held per response, not per socket.
 */
import type { CatalogModel } from '../../src/catalog/model';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import { chargesRecorded, expectNothingCharged } from '../support/charges';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { WebSocketClient as Client, type Frame } from '../support/ws-client';

jest.setTimeout(60_000);

const userText = (text: string) => ({ type: 'message', role: 'user', content: [{ type: 'input_text', text }] });

/** 48 KB of text: about 12 000 simulator tokens, over the 8 192 of `sim-small-context`. */
const LONG = 'The quick brown fox jumps over the lazy dog. '.repeat(1100);

describe('issue 25 item 3: Responses over WebSocket', () => {
  let gateway: TestGateway;
  let wsUrl: string;
  let auth: Record<string, string>;
  const clients: Client[] = [];
  const open = async (headers = auth) => {
    const client = await Client.open(wsUrl, headers);
    clients.push(client);
    return client;
  };
  /** Charges recorded (the billing stream the worker reads): one per billed call. */
  const charges = () => chargesRecorded(gateway);

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { RESPONSES_WS_IDLE_MS: '4000' } });
    // One response at a time for the account: two sockets may still each run theirs in turn.
    await gateway.deps.db.query('UPDATE accounts SET concurrency_cap = 1 WHERE id = $1', [gateway.accountId]);
    wsUrl = `${gateway.url.replace('http', 'ws')}/v1/responses`;
    auth = { authorization: `Bearer ${gateway.key}`, 'openai-beta': 'responses_websockets=2026-02-06' };
  });
  afterAll(async () => {
    for (const client of clients) client.ws.terminate();
    await gateway.close();
  });

  it('authenticates the upgrade by its headers only: no key, or a key in the URL, is 401 in the Responses envelope', async () => {
    await expect(Client.open(wsUrl, {})).rejects.toMatchObject({ status: 401 });
    const inUrl = await Client.open(`${wsUrl}?key=${gateway.key}`, {}).catch((error: { status: number; body: string }) => error);
    expect(inUrl).toMatchObject({ status: 401 });
    expect(JSON.parse((inUrl as { body: string }).body).error.type).toBe('authentication_error');
  });

  it('answers GET /v1/responses without an upgrade with 426 and a clear message, never 404', async () => {
    const response = await fetch(`${gateway.url}/v1/responses`, { headers: { authorization: `Bearer ${gateway.key}` } });
    expect(response.status).toBe(426);
    expect(((await response.json()) as Frame).error.message).toContain('Upgrade: websocket');
  });

  // First of the socket tests: no charge of an earlier test can still be settling.
  it('answers a generate:false warm-up without an upstream call or a charge, then continues from it', async () => {
    const client = await open();
    const calls = gateway.sim.requests.length;
    const before = await charges();
    const body = { model: 'claude-sonnet-4-5', store: false, input: [userText('Warm codeword heron-7720')] };
    const warm = await client.turn({ ...body, generate: false });
    expect(warm.map((frame) => frame.type)).toEqual(['response.created', 'response.completed']);
    expect(gateway.sim.requests.length).toBe(calls);
    expect(await charges()).toBe(before);

    const real = await client.turn({ ...body, input: [], previous_response_id: warm.at(-1)!.response.id });
    expect(real.at(-1)!.type).toBe('response.completed');
    // Settled right after the last frame went out: wait for it.
    while ((await charges()) === before) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(JSON.stringify(gateway.sim.requests.at(-1)!.body)).toContain('heron-7720');
  });

  describe.each(['gpt-5', 'claude-sonnet-4-5'])('on %s', (model) => {
    it('serves response.create turns with the stream events in order, chained on one socket', async () => {
      const client = await open();
      const first = await client.turn({ model, store: false, input: [userText('Say hello to walrus-3391')], instructions: 'Be brief.' });
      const types = first.map((frame) => frame.type);
      expect(types[0]).toBe('response.created');
      expect(types.at(-1)).toBe('response.completed');
      expect(types).toContain('response.output_text.delta');
      const sequence = first.map((frame) => frame.sequence_number).filter((n) => typeof n === 'number');
      expect(sequence).toEqual([...sequence].sort((a, b) => a - b));
      const completed = first.at(-1)!.response;
      expect(completed.usage.output_tokens).toBeGreaterThan(0);

      const second = await client.turn({
        model,
        store: false,
        previous_response_id: completed.id,
        input: [userText('And now goodbye')],
        instructions: 'Be brief.',
      });
      expect(second.at(-1)!.type).toBe('response.completed');
      const upstream = JSON.stringify(gateway.sim.requests.at(-1)!.body);
      expect(upstream).toContain('walrus-3391');
      expect(upstream).toContain('And now goodbye');
    });
  });

  it('answers a malformed message with an error event and stays usable', async () => {
    const client = await open();
    client.ws.send('{not json');
    const [bad] = await client.until((frame) => frame.type === 'error');
    expect(bad).toMatchObject({ type: 'error', status: 400, error: { type: 'invalid_request_error' } });
    const invalid = await client.turn({ store: false, input: 'no model' });
    expect(invalid.at(-1)).toMatchObject({ type: 'error', status: 400 });
    expect(invalid.at(-1)!.error.message).toContain('model');
    const fine = await client.turn({ model: 'gpt-5', store: false, input: 'Hello again' });
    expect(fine.at(-1)!.type).toBe('response.completed');
    expect(client.closed).toBeUndefined();
  });

  it('answers a prompt over the context window with error and response.failed (context_length_exceeded), free, and stays usable', async () => {
    const tiny = (id: string, family: string, native: CatalogModel['nativeProtocols']): CatalogModel => ({
      ...structuredClone(gateway.deps.catalog.find('gpt-4.1')!),
      id,
      aliases: [],
      family,
      upstreamModel: 'sim-small-context',
      contextWindow: 8_192,
      maxOutputTokens: 1_024,
      nativeProtocols: native,
      protocols: ['messages', 'responses', 'chat', 'generate-content'],
      capabilities: ['text', 'streaming', 'tool_use'],
    });
    gateway.deps.catalog.replace([
      ...gateway.deps.catalog.models,
      tiny('ws-tiny-gpt', 'openai', ['responses']),
      tiny('ws-tiny-claude', 'anthropic', ['messages']),
    ]);
    const groupId = await createGroup(gateway.deps.db, { name: 'ws-tiny', family: null });
    await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
      groupId,
      name: 'ws-tiny-responses',
      protocol: 'responses',
      baseUrl: gateway.sim.url,
      apiKey: 'sim-key',
      models: ['ws-tiny-gpt'],
    });
    await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
      groupId,
      name: 'ws-tiny-messages',
      protocol: 'messages',
      baseUrl: gateway.sim.url,
      apiKey: 'sim-key',
      models: ['ws-tiny-claude'],
    });
    gateway.services.upstreams.invalidate();
    const key = (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId: gateway.accountId, groupId, name: 'ws-tiny' }))
      .secret;
    const client = await open({ authorization: `Bearer ${key}` });
    await expectNothingCharged(
      gateway,
      async () => {
        // Native pass-through (the upstream's own stream) and translated (Anthropic's 400, re-worded).
        for (const model of ['ws-tiny-gpt', 'ws-tiny-claude']) {
          const from = client.frames.length;
          client.ws.send(JSON.stringify({ type: 'response.create', model, store: false, input: [userText(LONG)] }));
          const frames = await client.until((frame) => frame.type === 'response.failed', from);
          expect({ model, types: frames.map((frame) => frame.type).filter((type) => type !== 'response.in_progress') }).toEqual({
            model,
            types: ['response.created', 'error', 'response.failed'],
          });
          expect(frames.find((frame) => frame.type === 'error')).toMatchObject({ code: 'context_length_exceeded', param: 'input' });
          expect(frames.at(-1)!.response).toMatchObject({ status: 'failed', error: { code: 'context_length_exceeded' } });
        }
      },
      async () => {
        // The same socket serves the next response (and that one is charged).
        expect((await client.turn({ model: 'ws-tiny-claude', store: false, input: [userText('Hello')] })).at(-1)!.type).toBe(
          'response.completed',
        );
      },
    );
    expect(client.closed).toBeUndefined();
  });

  it('holds concurrency per response, not per open socket', async () => {
    // The account may run one response at a time (cap 1); two open sockets each serve theirs.
    const [a, b] = [await open(), await open()];
    expect((await a.turn({ model: 'gpt-5', store: false, input: 'From socket A' })).at(-1)!.type).toBe('response.completed');
    expect((await b.turn({ model: 'gpt-5', store: false, input: 'From socket B' })).at(-1)!.type).toBe('response.completed');
  });

  it('closes the socket with an error event when its key is deleted', async () => {
    const created = await fetch(`${gateway.url}/api/v1/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.key },
      body: JSON.stringify({ name: 'ws key', group_id: 'default' }),
    });
    const key = (await created.json()) as { id: number; key: string };
    expect(created.status).toBe(201);
    const client = await open({ authorization: `Bearer ${key.key}` });
    expect((await client.turn({ model: 'gpt-5', store: false, input: 'Before deletion' })).at(-1)!.type).toBe('response.completed');
    const deleted = await fetch(`${gateway.url}/api/v1/keys/${key.id}`, { method: 'DELETE', headers: { 'x-api-key': gateway.key } });
    expect(deleted.status).toBe(200);
    const [event] = await client.until((frame) => frame.type === 'error');
    expect(event).toMatchObject({ status: 401, error: { type: 'authentication_error' } });
    expect((await client.closedWith()).code).toBe(1008);
  });

  it('closes an idle socket after RESPONSES_WS_IDLE_MS with an error event', async () => {
    const client = await open();
    const [event] = await client.until((frame) => frame.type === 'error');
    expect(event.error.code).toBe('websocket_idle_timeout');
    expect((await client.closedWith()).code).toBe(1000);
  });
});
