/**
 * Issue 21: one named regression test per security finding of the outside probe, through the whole
 * gateway (API, PostgreSQL, Redis, the provider simulator), each failing on the code before its fix.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { consoleLogin } from '../support/console-login';

jest.setTimeout(60_000);

interface Answer {
  status: number;
  text: string;
  json: Record<string, any>;
  headers: Record<string, string | string[] | undefined>;
}

async function listen(server: Server, host = '127.0.0.1'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return `http://${host}:${(server.address() as AddressInfo).port}`;
}

describe('issue 21 security findings', () => {
  let gateway: TestGateway;
  const agents = new Map<string, Agent>();
  const dispatcherFrom = (address: string) => {
    let agent = agents.get(address);
    if (!agent) {
      agent = new Agent({ localAddress: address });
      agents.set(address, agent);
    }
    return agent;
  };

  /** One call from a chosen loopback source address (distinct callers for IP rules). */
  async function call(
    method: string,
    path: string,
    options: { from?: string; headers?: Record<string, string>; body?: unknown } = {},
  ): Promise<Answer> {
    const body = options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    const response = await request(`${gateway.url}${path}`, {
      method: method as 'GET',
      dispatcher: dispatcherFrom(options.from ?? '127.0.0.1'),
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers },
      body,
    });
    const text = await response.body.text();
    let json: Record<string, any> = {};
    try {
      json = JSON.parse(text);
    } catch {
      json = {};
    }
    return { status: response.statusCode, text, json, headers: response.headers };
  }

  async function operatorSession(email: string, role: 'operator' | 'member' = 'operator'): Promise<Record<string, string>> {
    const login = await consoleLogin(gateway.deps.db, gateway.accountId, email, role);
    return { cookie: login.cookie, 'x-csrf-token': login.csrf };
  }

  beforeAll(async () => {
    // The real policy: no private image URLs (the suite's default allows them for the simulator's images).
    gateway = await startTestGateway({ env: { IMAGE_FETCH_ALLOW_PRIVATE: 'false' } });
  });
  afterAll(async () => {
    for (const agent of agents.values()) await agent.close();
    await gateway.close();
  });

  describe('issue 21 finding 1: SSRF through IPv4-mapped IPv6 and redirects', () => {
    let internal: Server;
    let internalPort = 0;
    let hits = 0;
    beforeAll(async () => {
      internal = createServer((_req, res) => {
        hits++;
        res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.from('89504e470d0a1a0a', 'hex'));
      });
      internalPort = Number(new URL(await listen(internal)).port);
    });
    afterAll(async () => {
      await new Promise((resolve) => internal.close(resolve));
    });

    it.each([
      ['IPv4-mapped IPv6', () => `http://[::ffff:127.0.0.1]:${internalPort}/x.png`],
      ['IPv4-mapped IPv6, hex', () => `http://[::ffff:7f00:1]:${internalPort}/x.png`],
      ['IPv4-compatible IPv6', () => `http://[::127.0.0.1]:${internalPort}/x.png`],
      ['NAT64', () => `http://[64:ff9b::7f00:1]:${internalPort}/x.png`],
      ['6to4', () => `http://[2002:7f00:1::]:${internalPort}/x.png`],
      ['decimal IPv4', () => `http://2130706433:${internalPort}/x.png`],
      ['IPv6 loopback', () => `http://[::1]:${internalPort}/x.png`],
    ])('an image URL on %s is refused with a 400 and never fetched', async (_form, url) => {
      const answer = await call('POST', '/v1/chat/completions', {
        headers: { authorization: `Bearer ${gateway.key}` },
        body: {
          model: 'gemini-2.5-flash',
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'look' },
                { type: 'image_url', image_url: { url: url() } },
              ],
            },
          ],
        },
      });
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({ type: 'invalid_request_error', message: expect.stringContaining('image URL refused') });
      expect(hits).toBe(0);
    });
  });

  describe('issue 21 finding 2: IP rules on every key-authenticated route', () => {
    let secret: string;
    let taskId: string;
    beforeAll(async () => {
      const groupId = (await gateway.deps.db.query<{ id: number }>("SELECT id FROM routing_groups WHERE name = 'default'")).rows[0]!.id;
      ({ secret } = await insertApiKey(gateway.deps.db, gateway.deps.crypto, {
        accountId: gateway.accountId,
        groupId,
        name: 'blacklisted',
        ipBlacklist: ['127.0.0.3'],
      }));
      const submitted = await call('POST', '/v1/tasks/submit', {
        from: '127.0.0.2',
        headers: { authorization: `Bearer ${secret}` },
        body: { model: 'veo-3', prompt: 'a cat' },
      });
      expect(submitted.status).toBeLessThan(300);
      taskId = submitted.json.task_id ?? submitted.json.id;
    });

    // Four entries each: jest-each takes a missing last argument for a `done` callback.
    const routes: Array<[string, string, () => unknown, Record<string, string>]> = [
      ['GET', '/v1/models', () => undefined, {}],
      ['GET', '/v1/models/gpt-4.1', () => undefined, {}],
      [
        'POST',
        '/v1/messages/count_tokens',
        () => ({ model: 'claude-sonnet-4-5', messages: [{ role: 'user', content: 'hi' }] }),
        { 'anthropic-version': '2023-06-01' },
      ],
      ['POST', '/v1/responses/input_tokens', () => ({ model: 'gpt-4.1', input: 'hi' }), {}],
      ['POST', '/v1beta/models/gemini-2.5-flash:countTokens', () => ({ contents: [{ parts: [{ text: 'hi' }] }] }), {}],
      ['POST', '/v1/tasks/query', () => ({ task_id: taskId }), {}],
      ['POST', '/v1/tasks/cancel', () => ({ task_id: taskId }), {}],
      ['GET', '/v1/tasks/stream/{task}', () => undefined, {}],
      ['POST', '/v1/images/generations', () => ({ model: 'gpt-image-1', prompt: 'a cat' }), {}],
      ['GET', '/api/v1/me/account', () => undefined, {}],
      ['POST', '/v1/chat/completions', () => ({ model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }), {}],
    ];

    it.each(routes)('%s %s answers 403 from a blacklisted address and not from another', async (method, path, body, extra) => {
      const target = path.replace('{task}', taskId);
      const headers = { authorization: `Bearer ${secret}`, 'x-api-key': secret, 'x-goog-api-key': secret, ...extra };
      const refused = await call(method, target, { from: '127.0.0.3', headers, body: body() });
      expect(refused.status).toBe(403);
      expect(refused.text).toContain('127.0.0.3');
      if (path === '/v1/tasks/stream/{task}') return; // an allowed stream stays open: the refusal is what is checked
      const allowed = await call(method, target, { from: '127.0.0.2', headers, body: body() });
      expect(allowed.status).not.toBe(403);
    });
  });

  describe('issue 21 finding 3: upstream credentials are never reflected', () => {
    const UPSTREAM_SECRET = 'upstream-credential-7f3a9c2e51';
    let echo: Server;
    let secret: string;
    let upstreamId: number;
    let keyId: number;
    beforeAll(async () => {
      // An upstream that echoes the credential it was sent in its error, as some providers do.
      echo = createServer((req: IncomingMessage, res) => {
        req.resume();
        res.writeHead(400, { 'content-type': 'application/json' }).end(
          JSON.stringify({
            error: { message: `Invalid request for key ${String(req.headers.authorization)}`, type: 'invalid_request_error' },
          }),
        );
      });
      const echoUrl = await listen(echo);
      const groupId = await createGroup(gateway.deps.db, { name: 'echoing', family: null });
      upstreamId = await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: 'echo',
        protocol: 'chat',
        baseUrl: echoUrl,
        apiKey: UPSTREAM_SECRET,
        models: ['gpt-4.1'],
      });
      gateway.services.upstreams.invalidate();
      ({ secret, id: keyId } = await insertApiKey(gateway.deps.db, gateway.deps.crypto, {
        accountId: gateway.accountId,
        groupId,
        name: 'echoing',
      }));
    });
    afterAll(async () => {
      await new Promise((resolve) => echo.close(resolve));
    });

    it.each([
      ['chat', '/v1/chat/completions', { model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] }],
      ['chat, streamed', '/v1/chat/completions', { model: 'gpt-4.1', stream: true, messages: [{ role: 'user', content: 'hi' }] }],
      ['messages', '/v1/messages', { model: 'gpt-4.1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }],
      ['responses', '/v1/responses', { model: 'gpt-4.1', input: 'hi' }],
    ])('a %s error body does not carry the upstream credential', async (_label, path, body) => {
      const answer = await call('POST', path, {
        headers: { authorization: `Bearer ${secret}`, 'x-api-key': secret, 'anthropic-version': '2023-06-01' },
        body,
      });
      expect(answer.status).toBe(400);
      expect(answer.text).toContain('Invalid request for key');
      expect(answer.text).not.toContain(UPSTREAM_SECRET);
    });

    it("nor does the dial test's detail or the operator's upstream test", async () => {
      const session = await operatorSession('finding3@example.test');
      const dial = await call('POST', '/api/v1/dial/test', { headers: session, body: { model: 'gpt-4.1', protocol: 'chat', keyId } });
      expect(dial.status).toBe(200);
      expect(dial.text).toContain('Invalid request for key');
      expect(dial.text).not.toContain(UPSTREAM_SECRET);
      const test = await call('POST', `/api/v1/operator/upstreams/${upstreamId}/test`, { headers: session });
      expect(test.status).toBe(200);
      expect(test.json.ok).toBe(false);
      expect(test.text).not.toContain(UPSTREAM_SECRET);
    });
  });

  describe('issue 21 finding 4: /metrics labels from route patterns, never raw paths', () => {
    it('keeps a secret in a path out of /metrics, and random paths share one label', async () => {
      const leaked = `sk-svc-${'L'.repeat(40)}`;
      expect((await call('GET', `/api/v1/keys/${leaked}/x`)).status).toBe(401);
      expect((await call('GET', `/api/v1/keys/${leaked}`)).status).toBe(401);
      const series = async () =>
        (await call('GET', '/metrics')).text.split('\n').filter((line) => line.startsWith('gateway_http_requests_total{'));
      const before = await series();
      for (let i = 0; i < 20; i++) await call('GET', `/random-${i}-${Math.random().toString(36).slice(2)}/x`);
      const after = await series();
      const metrics = (await call('GET', '/metrics')).text;
      expect(metrics).not.toContain('sk-svc-');
      expect(metrics).not.toContain('/random-');
      expect(metrics).toMatch(/gateway_http_requests_total\{route="unmatched",method="GET",status="404"\}/);
      expect(after.length - before.length).toBeLessThanOrEqual(1);
    });

    it('labels a matched route with its pattern', async () => {
      await call('GET', '/v1/models/gpt-4.1', { headers: { authorization: `Bearer ${gateway.key}` } });
      expect((await call('GET', '/metrics')).text).toMatch(
        /gateway_http_requests_total\{route="\/v1\/models\/:model",method="GET",status="200"\}/,
      );
    });
  });

  describe('issue 21 finding 5: the task event stream ends when its key is deleted or revoked', () => {
    async function openStream(secret: string, taskId: string) {
      const response = await fetch(`${gateway.url}/v1/tasks/stream/${taskId}`, { headers: { authorization: `Bearer ${secret}` } });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      let text = '';
      const decoder = new TextDecoder();
      /** Reads until `predicate` holds, or the stream ends (then `ended` is true). */
      const readUntil = async (predicate: (all: string) => boolean): Promise<{ text: string; ended: boolean }> => {
        while (!predicate(text)) {
          const { value, done } = await reader.read();
          if (done) return { text, ended: true };
          text += decoder.decode(value, { stream: true });
        }
        return { text, ended: false };
      };
      return { readUntil, cancel: () => reader.cancel() };
    }

    it.each([
      ['deleted', (id: number) => call('DELETE', `/api/v1/keys/${id}`, { headers: { authorization: `Bearer ${gateway.key}` } })],
      [
        'revoked',
        (id: number) =>
          call('PUT', `/api/v1/keys/${id}`, { headers: { authorization: `Bearer ${gateway.key}` }, body: { status: 'revoked' } }),
      ],
    ])('a stream whose key is %s gets an error event and ends', async (_how, invalidate) => {
      const groupId = (await gateway.deps.db.query<{ id: number }>("SELECT id FROM routing_groups WHERE name = 'default'")).rows[0]!.id;
      const { secret, id } = await insertApiKey(gateway.deps.db, gateway.deps.crypto, {
        accountId: gateway.accountId,
        groupId,
        name: 'streaming',
      });
      const submitted = await call('POST', '/v1/tasks/submit', {
        headers: { authorization: `Bearer ${secret}` },
        body: { model: 'veo-3', prompt: 'a cat' },
      });
      const stream = await openStream(secret, submitted.json.task_id);
      // No worker runs here: the task stays queued, so only the key can end this stream.
      expect((await stream.readUntil((all) => all.includes('event: queued'))).ended).toBe(false);
      expect((await invalidate(id)).status).toBeLessThan(300);
      const rest = await stream.readUntil(() => false);
      expect(rest.ended).toBe(true);
      expect(rest.text).toMatch(
        /event: error\ndata: \{"error":\{"message":"API key was revoked, rotated or deleted","type":"authentication_error"/,
      );
    });
  });

  describe('issue 21 finding 9: NUL and other invalid bytes in identifiers are a 400, never a 500', () => {
    it.each([
      ['U+0000', 'resp_\u0000'],
      ['a lone surrogate', 'resp_\ud800'],
      ['U+0000 inside', 'resp_abc\u0000def'],
    ])('previous_response_id with %s answers 400 in the Responses envelope naming the field', async (_label, id) => {
      const answer = await call('POST', '/v1/responses', {
        headers: { authorization: `Bearer ${gateway.key}` },
        body: { model: 'gpt-4.1', input: 'hi', previous_response_id: id },
      });
      expect(answer.status).toBe(400);
      expect(answer.json.error).toMatchObject({ type: 'invalid_request_error', param: 'previous_response_id' });
    });

    it.each([
      ['POST', '/v1/tasks/query', { task_id: 'task_\u0000' }],
      ['POST', '/v1/tasks/cancel', { task_id: 'task_\u0000aaaaaaaaaaaaaaaaaaaa' }],
      ['GET', '/v1/tasks/stream/task_%00', undefined],
      ['GET', '/api/v1/keys/%00', undefined],
      ['GET', '/api/v1/keys/1%00', undefined],
      ['GET', '/api/v1/me/usage?api_key_id=%00', undefined],
      ['GET', '/api/v1/me/usage?cursor=%00', undefined],
      ['GET', '/v1/models/gpt%00', undefined],
      ['POST', '/api/v1/keys', { name: 'ok', group_id: 'default\u0000' }],
    ])('%s %s is refused as a client error in the gateway envelope', async (method, path, body) => {
      const answer = await call(method, path, { headers: { authorization: `Bearer ${gateway.key}` }, body });
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.json.error).toMatchObject({ type: expect.any(String), message: expect.any(String) });
    });
  });
});
