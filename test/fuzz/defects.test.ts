/**
 * Issue 14: one test per defect found by fuzzing and fault injection (defects 1, 2, 3, 6 and 7; 4 and 5
 * need a Redis of their own and live in test/chaos/). Each fails without its fix.
 */
import { addUpstreamAccount, createGroup } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { answerProblem, envelopeProblem } from './envelopes';
import { parseRawAnswer, probe, rawExchange, type ProbeAnswer } from './http-probe';

jest.setTimeout(60_000);

const NUL = '\u0000';
const LONE_SURROGATE = '\ud800';

describe('issue 14 defects', () => {
  let gateway: TestGateway;
  beforeAll(async () => {
    gateway = await startTestGateway({ env: { UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '300', UPSTREAM_COOLDOWN_MS: '60000' } });
  });
  afterAll(async () => {
    await gateway.close();
  });

  const bearer = () => ({ authorization: `Bearer ${gateway.key}`, 'content-type': 'application/json' });
  const postJson = (path: string, body: unknown, headers: Record<string, string> = bearer()) =>
    probe(gateway.url, { path, headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
  const walletCredits = async () =>
    Number(
      (await gateway.deps.db.query<{ balance_credits: string }>('SELECT balance_credits FROM accounts WHERE id = $1', [gateway.accountId]))
        .rows[0]?.balance_credits,
    );

  function expect400(answer: ProbeAnswer, surface: Parameters<typeof envelopeProblem>[0], field?: string): void {
    expect({ status: answer.status, problem: envelopeProblem(surface, answer.json) }).toEqual({ status: 400, problem: undefined });
    if (field) expect(answer.text).toContain(field);
  }

  describe("issue 14 defect 1: malformed percent-encoding answers 400 in the caller's envelope", () => {
    it('Generate-Content model path', async () => {
      const answer = await postJson(
        '/v1beta/models/%zz:generateContent',
        { contents: [{ parts: [{ text: 'hi' }] }] },
        { 'x-goog-api-key': gateway.key, 'content-type': 'application/json' },
      );
      expect400(answer, 'generate-content');
    });

    it.each([
      ['GET', '/api/v1/keys/%zz'],
      ['GET', '/api/v1/keys/%zz/reveal'],
      ['PUT', '/api/v1/keys/%zz'],
      ['DELETE', '/api/v1/keys/%zz'],
      ['POST', '/api/v1/keys/%zz/rotate'],
      ['GET', '/v1/tasks/stream/%zz'],
      ['GET', '/v1/models/%zz'],
    ])('%s %s', async (method, path) => {
      const answer = await probe(gateway.url, {
        method,
        path,
        headers: bearer(),
        body: method === 'GET' || method === 'DELETE' ? undefined : '{}',
      });
      expect400(answer, 'gateway');
    });
  });

  describe('issue 14 defect 2: U+0000 and lone surrogates never reach PostgreSQL as a 500', () => {
    it.each([
      ['U+0000', NUL],
      ['a lone surrogate', LONE_SURROGATE],
    ])('key names with %s are refused naming the field (create and update)', async (_label, bad) => {
      expect400(await postJson('/api/v1/keys', { name: `a${bad}b`, group_id: 'default' }), 'gateway', 'name');
      const created = await postJson('/api/v1/keys', { name: 'fine', group_id: 'default' });
      expect(created.status).toBe(201);
      const id = (created.json as { id: number }).id;
      expect400(
        await probe(gateway.url, {
          method: 'PUT',
          path: `/api/v1/keys/${id}`,
          headers: bearer(),
          body: JSON.stringify({ name: `x${bad}` }),
        }),
        'gateway',
        'name',
      );
      expect400(await postJson('/api/v1/keys', { name: 'ok', group_id: `default${bad}` }), 'gateway', 'group_id');
    });

    it('a console login email with U+0000 is refused naming the field', async () => {
      expect400(
        await postJson('/api/v1/auth/login', { email: `a${NUL}@example.com`, password: 'x' }, { 'content-type': 'application/json' }),
        'gateway',
        'email',
      );
    });

    it('?model=%00 on the usage listing is refused naming the parameter', async () => {
      const answer = await probe(gateway.url, { method: 'GET', path: '/api/v1/me/usage?model=%00', headers: bearer() });
      expect400(answer, 'gateway', 'model');
    });

    it('a task prompt with U+0000 is accepted and stored', async () => {
      const answer = await postJson('/v1/tasks/submit', { model: 'veo-3', prompt: `a cat${NUL}${LONE_SURROGATE} on a mat` });
      expect(answer.status).toBeLessThan(300);
      const id = (answer.json as { task_id?: string; id?: string }).task_id ?? (answer.json as { id: string }).id;
      const stored = await gateway.deps.db.query<{ request: { prompt: string } }>('SELECT request FROM tasks WHERE id = $1', [id]);
      expect(stored.rows[0]?.request.prompt).toBe('a cat\uFFFD\uFFFD on a mat');
    });

    it('a Responses input with U+0000 is answered and stored, so the upstream answer is delivered', async () => {
      const answer = await postJson('/v1/responses', { model: 'gpt-4.1', input: `say${NUL} hi${LONE_SURROGATE}` });
      expect(answer.status).toBe(200);
      const id = (answer.json as { id: string }).id;
      const followUp = await postJson('/v1/responses', { model: 'gpt-4.1', input: 'and again', previous_response_id: id });
      expect(followUp.status).toBe(200);
    });
  });

  describe('issue 14 defect 3: JSON nested 10,000 deep is a 400 at parse time', () => {
    const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
    it.each([
      [
        '/v1/chat/completions',
        'chat',
        (nested: string) => `{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"}],"metadata":${nested}}`,
      ],
      [
        '/v1/messages',
        'messages',
        (nested: string) => `{"model":"claude-sonnet-4-5","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"metadata":${nested}}`,
      ],
      [
        '/v1beta/models/gemini-2.5-flash:generateContent',
        'generate-content',
        (nested: string) =>
          `{"contents":[{"parts":[{"text":"hi"}]}],"generationConfig":{"responseSchema":${nested.replace(/\[/g, '{"a":').replace(/\]/g, '}').replace(/:\}/, ':1}')}}}`,
      ],
      ['/api/v1/keys', 'gateway', (nested: string) => `{"name":${nested},"group_id":"default"}`],
    ] as const)('%s', async (path, surface, body) => {
      const before = await walletCredits();
      const answer = await postJson(path, body(deep(10_000)), {
        ...bearer(),
        'x-api-key': gateway.key,
        'anthropic-version': '2023-06-01',
        'x-goog-api-key': gateway.key,
      });
      expect400(answer, surface, 'nests deeper');
      expect(await walletCredits()).toBe(before);
    });
  });

  describe('issue 14 defect 6: an upstream timeout is a 502 api_error after failover, never a 504', () => {
    it('answers 502 when every account times out, and fails over to a healthy one first', async () => {
      const groupId = await createGroup(gateway.deps.db, { name: 'hanging', family: null });
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: 'hang-0',
        protocol: 'chat',
        baseUrl: `${gateway.sim.url}/_fault/hang`,
        apiKey: 'sim-key',
        models: ['gpt-4.1'],
        priority: 0,
      });
      gateway.services.upstreams.invalidate();
      const { secret } = await insertApiKey(gateway.deps.db, gateway.deps.crypto, {
        accountId: gateway.accountId,
        groupId,
        name: 'hanging',
      });
      const body = { model: 'gpt-4.1', messages: [{ role: 'user', content: 'hi' }] };
      const answer = await postJson('/v1/chat/completions', body, {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
      });
      expect(answer.status).toBe(502);
      expect(answer.json).toMatchObject({ error: { type: 'api_error', code: 'api_error' } });
      expect(answerProblem('chat', answer)).toBeUndefined();

      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: 'ok-1',
        protocol: 'chat',
        baseUrl: gateway.sim.url,
        apiKey: 'sim-key',
        models: ['gpt-4.1'],
        priority: 1,
      });
      gateway.services.upstreams.invalidate();
      const failedOver = await postJson('/v1/chat/completions', body, {
        authorization: `Bearer ${secret}`,
        'content-type': 'application/json',
      });
      expect(failedOver.status).toBe(200);
    });
  });

  describe('issue 14 defect 7: malformed request heads get a JSON error envelope', () => {
    it.each([
      ['a bare LF', 'POST /v1/messages HTTP/1.1\nHost: x\n\n', 400, 'messages'],
      ['NUL in a header', 'GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n', 400, 'gateway'],
      ['oversized headers', `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'chat'],
      ['a broken request line', 'BLAH\r\n\r\n', 400, 'gateway'],
    ] as const)('%s', async (_label, bytes, status, surface) => {
      const answer = parseRawAnswer(await rawExchange(gateway.url, Buffer.from(bytes, 'latin1')));
      expect(answer.status).toBe(status);
      expect(answer.contentType).toContain('application/json');
      expect(envelopeProblem(surface, answer.json)).toBeUndefined();
    });
  });
});
