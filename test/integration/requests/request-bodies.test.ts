/**
 * Issue 22, item 2: request and response bodies are kept only when an operator allowed it and the
 * account (or the key, overriding) asked; secrets are redacted (credential fields, bearer tokens,
 * key-shaped strings, the configured JSON paths); bodies are cut at the cap; a streamed answer is
 * stored assembled, with its event count.
 */
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { findGroupId } from '../../../src/process/seed';
import { startRequestLogWorker, type RequestLogWorker } from '../../../workers/request-log-worker';
import { eventually } from '../billing/billing-fixtures';
import { startTestGateway, type TestGateway } from '../../support/gateway';
import { consoleLogin } from '../../support/console-login';

jest.setTimeout(90_000);

type Json = Record<string, unknown>;
const MODEL = 'claude-sonnet-4-5';
const SECRET_KEY = 'sk-live-abcdefghijklmnopqrstuvwxyz0123';
const BODY = {
  model: MODEL,
  max_tokens: 16,
  messages: [{ role: 'user', content: 'Hello, use Bearer abcdefghijklmnopqrst please' }],
  metadata: { user_id: 'user-4711', api_key: SECRET_KEY },
};

describe('kept request and response bodies', () => {
  let gateway: TestGateway;
  let worker: RequestLogWorker;
  let operator: { cookie: string; 'x-csrf-token': string };
  let groupId: number;

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { REQUEST_BODY_MAX_BYTES: '3000', REQUEST_BODY_REDACT_PATHS: 'metadata.user_id' } });
    worker = await startRequestLogWorker(gateway.deps, { lingerMs: 5, blockMs: 200 });
    const login = await consoleLogin(gateway.deps.db, gateway.accountId, 'op@example.test', 'operator');
    operator = { cookie: login.cookie, 'x-csrf-token': login.csrf };
    groupId = (await findGroupId(gateway.deps.db, 'default'))!;
  });
  afterAll(async () => {
    await worker.close();
    await gateway.close();
  });

  /** A new key: its settings are read fresh (keys are cached per process for KEY_CACHE_TTL_MS). */
  const newKey = async () => {
    const key = await insertApiKey(gateway.deps.db, gateway.deps.crypto, {
      accountId: gateway.accountId,
      groupId,
      name: `k${Math.random()}`,
    });
    return { id: key.id, secret: key.secret };
  };
  const chat = async (secret: string, body: unknown = BODY) => {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify(body),
    });
    await response.text();
    return response.headers.get('x-request-id')!;
  };
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const response = await fetch(`${gateway.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Json };
  };
  const detail = (requestId: string) =>
    eventually(
      `record ${requestId}`,
      () => call('GET', `/api/v1/me/requests/${requestId}`, { authorization: `Bearer ${gateway.key}` }),
      // The final record (a provisional one, appended before the answer ended, may come first).
      (reply) => reply.status === 200 && (reply.body as { provisional?: unknown }).provisional === false,
    );

  it('off by default; the account cannot turn it on until an operator allows it', async () => {
    const key = await newKey();
    const requestId = await chat(key.secret);
    expect((await detail(requestId)).body).toMatchObject({ has_bodies: false, bodies: null });
    const refused = await call('PUT', '/api/v1/me/request-bodies', { authorization: `Bearer ${gateway.key}` }, { keep: true });
    expect(refused.status).toBe(403);
  });

  it('allowed and kept: the request redacted, the answer kept; streamed answers assembled with their event count; cut at the cap', async () => {
    const allowed = await call('PUT', `/api/v1/operator/accounts/${gateway.accountId}/request-bodies`, operator, { allowed: true });
    expect(allowed.body).toMatchObject({ allowed: true, keep: false });
    const kept = await call('PUT', '/api/v1/me/request-bodies', { authorization: `Bearer ${gateway.key}` }, { keep: true });
    expect(kept).toMatchObject({ status: 200, body: { allowed: true, keep: true } });

    const key = await newKey();
    const requestId = await chat(key.secret);
    const record = (await detail(requestId)).body;
    expect(record.has_bodies).toBe(true);
    const bodies = record.bodies as { request: string; response: string; stream_events: number | null; truncated: boolean };
    expect(bodies.truncated).toBe(false);
    expect(bodies.request).not.toContain(SECRET_KEY);
    expect(bodies.request).not.toContain('abcdefghijklmnopqrst');
    expect(bodies.request).not.toContain('user-4711');
    const request = JSON.parse(bodies.request) as { metadata: Json; messages: Array<{ content: string }> };
    expect(request.metadata).toEqual({ user_id: '[redacted]', api_key: '[redacted]' });
    expect(request.messages[0]!.content).toBe('Hello, use Bearer [redacted] please');
    expect(JSON.parse(bodies.response)).toMatchObject({ object: 'chat.completion' });
    expect(bodies.stream_events).toBeNull();

    const streamed = await chat(key.secret, { ...BODY, stream: true, stream_options: { include_usage: true } });
    const streamBodies = (await detail(streamed)).body.bodies as { response: string; stream_events: number };
    const assembled = JSON.parse(streamBodies.response) as { object: string; choices: Array<{ message: { content: string } }> };
    expect(assembled.object).toBe('chat.completion');
    expect(assembled.choices[0]!.message.content.length).toBeGreaterThan(0);
    expect(streamBodies.stream_events).toBeGreaterThan(2);

    const big = await chat(key.secret, { ...BODY, messages: [{ role: 'user', content: 'x'.repeat(10_000) }] });
    const cut = (await detail(big)).body.bodies as { request: string; truncated: boolean };
    expect(cut.truncated).toBe(true);
    expect(Buffer.byteLength(cut.request)).toBeLessThanOrEqual(3000);
  });

  it('a key overrides the account: off for one key while the account keeps them', async () => {
    const key = await newKey();
    const override = await call(
      'PUT',
      `/api/v1/me/keys/${key.id}/request-bodies`,
      { authorization: `Bearer ${gateway.key}` },
      { keep: false },
    );
    expect(override.body.key_overrides).toEqual([{ api_key_id: key.id, keep: false }]);
    const requestId = await chat(key.secret);
    expect((await detail(requestId)).body).toMatchObject({ has_bodies: false, bodies: null });
  });
});
