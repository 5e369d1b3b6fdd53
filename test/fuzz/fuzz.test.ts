/**
 * Property-based fuzzing of every endpoint (issue 14): generated hostile requests against the whole
 * gateway in process (real PostgreSQL and Redis, the simulator as upstream, a billing worker process).
 * Invariants for every answer: no 5xx but 502/503/529, the caller's protocol envelope, no stack trace
 * or path; at the end the process is alive and the wallet moved by exactly the usage rows of the
 * answers that succeeded. Seeded: FUZZ_SEED reproduces a run (the seed is printed, and fast-check
 * prints seed and path of a counterexample); FUZZ_RUNS scales the number of cases.
 */
import fc from 'fast-check';
import { createAccount, topUp } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { startNodeProcess, type ChildHandle } from '../chaos/chaos-harness';
import { eventually, ledgerFigures } from '../chaos/chaos-figures';
import { startTestGateway, type TestGateway } from '../support/gateway';
import { hostileId, hostileNumber, hostileText, hostileValue, mutatedBody, pathSegment, serialize, type Json } from './arbitraries';
import { answerProblem, type Surface } from './envelopes';
import { probe, type ProbeAnswer } from './http-probe';

jest.setTimeout(300_000);

const SEED = Number(process.env.FUZZ_SEED ?? 20_261_123);
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

type Protocol = Exclude<Surface, 'gateway'>;

const BASES: Record<Protocol, { path: string; body: Record<string, Json>; fields: string[] }> = {
  messages: {
    path: '/v1/messages',
    body: { model: 'claude-haiku-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
    fields: [
      'model',
      'max_tokens',
      'messages',
      'messages.0',
      'messages.0.role',
      'messages.0.content',
      'messages.0.content.0',
      'messages.0.content.0.type',
      'messages.1',
      'system',
      'temperature',
      'top_p',
      'top_k',
      'stop_sequences',
      'stream',
      'tools',
      'tools.0.name',
      'tools.0.input_schema',
      'tool_choice',
      'metadata',
      'metadata.user_id',
      'thinking',
      'thinking.budget_tokens',
      'service_tier',
    ],
  },
  chat: {
    path: '/v1/chat/completions',
    body: { model: 'gpt-4.1', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
    fields: [
      'model',
      'messages',
      'messages.0',
      'messages.0.role',
      'messages.0.content',
      'messages.0.content.0',
      'messages.0.name',
      'messages.1',
      'max_tokens',
      'max_completion_tokens',
      'temperature',
      'top_p',
      'n',
      'stream',
      'stream_options',
      'stream_options.include_usage',
      'tools',
      'tools.0.function.parameters',
      'tool_choice',
      'response_format',
      'response_format.json_schema',
      'stop',
      'seed',
      'logprobs',
      'user',
      'reasoning_effort',
    ],
  },
  responses: {
    path: '/v1/responses',
    body: { model: 'gpt-4.1', max_output_tokens: 16, input: 'hi' },
    fields: [
      'model',
      'input',
      'input.0',
      'input.0.role',
      'input.0.content',
      'instructions',
      'max_output_tokens',
      'temperature',
      'tools',
      'tools.0.parameters',
      'tool_choice',
      'text',
      'text.format',
      'reasoning',
      'reasoning.effort',
      'store',
      'previous_response_id',
      'stream',
      'metadata',
      'include',
    ],
  },
  'generate-content': {
    path: '/v1beta/models/gemini-2.5-flash:generateContent',
    body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { maxOutputTokens: 16 } },
    fields: [
      'contents',
      'contents.0',
      'contents.0.role',
      'contents.0.parts',
      'contents.0.parts.0',
      'contents.0.parts.0.text',
      'contents.0.parts.0.inlineData',
      'systemInstruction',
      'systemInstruction.parts',
      'generationConfig',
      'generationConfig.maxOutputTokens',
      'generationConfig.temperature',
      'generationConfig.responseSchema',
      'generationConfig.responseMimeType',
      'generationConfig.thinkingConfig',
      'tools',
      'tools.0.functionDeclarations',
      'toolConfig',
      'safetySettings',
      'cachedContent',
    ],
  },
};

const PROTOCOLS = Object.keys(BASES) as Protocol[];

function authHeaders(protocol: Protocol, key: string): Record<string, string> {
  switch (protocol) {
    case 'messages':
      return { 'x-api-key': key, 'anthropic-version': '2023-06-01' };
    case 'generate-content':
      return { 'x-goog-api-key': key };
    default:
      return { authorization: `Bearer ${key}` };
  }
}

/** The envelope a path's errors must come in (what a client of that path reads). */
function surfaceOf(path: string): Surface {
  const lower = path.toLowerCase().split('?')[0]!;
  if (lower.startsWith('/v1/messages')) return 'messages';
  if (lower.startsWith('/v1beta') || /^\/v1\/models\/[^/]+:(generatecontent|streamgeneratecontent)$/.test(lower)) return 'generate-content';
  return 'gateway';
}

describe('fuzz: every endpoint, every field, hostile input', () => {
  let gateway: TestGateway;
  let worker: ChildHandle;
  /** Management, tasks and images are fuzzed with another account's key, so they cannot disable the main one. */
  let other: { key: string; keyId: number };
  let succeeded = 0;
  let cases = 0;
  const statuses: Record<number, number> = {};

  beforeAll(async () => {
    process.stdout.write(`\n[fuzz] seed ${SEED} (FUZZ_SEED=${SEED} reproduces this run)\n`);
    gateway = await startTestGateway({ env: { MAX_BODY_BYTES: String(1024 * 1024), UPSTREAM_FIRST_BYTE_TIMEOUT_MS: '5000' } });
    worker = startNodeProcess('workers/index.ts', { ...gateway.deps.env, LOG_LEVEL: 'info', WORKER_QUEUES: 'billing' });
    await worker.waitFor(/worker started/, 60_000);
    const accountId = await createAccount(gateway.deps.db, { name: 'fuzz-other', tier: 'pro' });
    await topUp(gateway.deps.db, accountId, 1_000_000_000);
    const groupId = (await gateway.deps.db.query<{ id: number }>("SELECT id FROM routing_groups WHERE name = 'default'")).rows[0]!.id;
    const inserted = await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId, groupId, name: 'fuzz-other' });
    other = { key: inserted.secret, keyId: inserted.id };
  });
  afterAll(async () => {
    process.stdout.write(`\n[fuzz] ${cases} cases, statuses ${JSON.stringify(statuses)}\n`);
    await worker?.kill('SIGKILL');
    await gateway?.close();
  });

  async function check(surface: Surface, send: () => Promise<ProbeAnswer>, method = 'POST'): Promise<ProbeAnswer> {
    cases++;
    const answer = await send();
    statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
    // A HEAD answer has no body to hold an envelope: only its status is checked.
    const problem = answer.text === '' && answer.status < 500 && method === 'HEAD' ? undefined : answerProblem(surface, answer);
    if (problem) throw new Error(`${surface}: ${problem}`);
    return answer;
  }

  const assertProperty = <T>(arbitrary: fc.Arbitrary<T>, numRuns: number, predicate: (value: T) => Promise<void>) =>
    fc.assert(fc.asyncProperty(arbitrary, predicate), { seed: SEED, numRuns: runs(numRuns), endOnFailure: true });

  it.each(PROTOCOLS)('%s: mutated bodies at every field', async (protocol) => {
    const base = BASES[protocol];
    const request = fc.record({
      body: mutatedBody(base.body, base.fields),
      stream: fc.boolean(),
      auth: fc.constantFrom('right', 'right', 'right', 'right', 'right', 'none', 'wrong'),
    });
    await assertProperty(request, 400, async ({ body, stream, auth }) => {
      const key = auth === 'wrong' ? 'sk-svc-wrongwrongwrongwrongwrongwrong' : gateway.key;
      const withStream =
        stream && typeof body === 'object' && body !== null && !Array.isArray(body) && protocol !== 'generate-content'
          ? { ...body, stream: true }
          : body;
      const path =
        stream && protocol === 'generate-content' ? base.path.replace(':generateContent', ':streamGenerateContent?alt=sse') : base.path;
      const answer = await check(protocol, () =>
        probe(gateway.url, {
          path,
          body: serialize(withStream),
          headers: { 'content-type': 'application/json', ...(auth === 'none' ? {} : authHeaders(protocol, key)) },
        }),
      );
      if (answer.status < 300) succeeded++;
    });
  });

  it('raw bodies: invalid UTF-8, random bytes, truncated JSON, odd content types and encodings', async () => {
    const endpoint = fc.constantFrom(
      ...PROTOCOLS.map((p) => ({ surface: p as Surface, path: BASES[p].path, headers: authHeaders(p, gateway.key) })),
      { surface: 'gateway' as Surface, path: '/api/v1/keys', headers: { authorization: `Bearer ${other.key}` } },
      { surface: 'gateway' as Surface, path: '/v1/tasks/submit', headers: { authorization: `Bearer ${other.key}` } },
      { surface: 'gateway' as Surface, path: '/v1/images/generations', headers: { authorization: `Bearer ${other.key}` } },
      { surface: 'gateway' as Surface, path: '/api/v1/auth/login', headers: {} },
    );
    const bytes = fc.oneof(
      fc.uint8Array({ maxLength: 300 }).map((array) => Buffer.from(array)),
      fc.constantFrom(
        Buffer.from([0xff, 0xfe, 0x7b, 0x7d]),
        Buffer.from('{"model":"\xff\xfe"}', 'latin1'),
        Buffer.from('{"a":"\ud800"}'),
        Buffer.from('{"model":'),
        Buffer.from('\ufeff{}'),
        Buffer.from(''),
        Buffer.from('null'),
        Buffer.from('[]'),
        Buffer.from('"x"'),
        Buffer.from('{"a":1,"a":2}'),
      ),
      fc.string({ maxLength: 200 }).map((text) => Buffer.from(text)),
    );
    const contentType = fc.constantFrom(
      undefined,
      'application/json',
      'text/plain',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      '*/*',
      'application/json; charset="utf-8"',
      '\u00ff',
    );
    const encoding = fc.constantFrom(undefined, undefined, undefined, 'gzip', 'deflate', 'br', 'identity', 'bogus');
    await assertProperty(
      fc.record({ endpoint, bytes, contentType, encoding }),
      300,
      async ({ endpoint: target, bytes: body, contentType: type, encoding: coding }) => {
        const headers: Record<string, string> = { ...target.headers };
        if (type !== undefined) headers['content-type'] = type;
        if (coding !== undefined) headers['content-encoding'] = coding;
        const answer = await check(target.surface, () => probe(gateway.url, { path: target.path, headers, body }));
        if (answer.status < 300 && target.surface !== 'gateway') succeeded++;
      },
    );
  });

  it('odd paths, ids and methods on every route', async () => {
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD'),
      segments: fc.array(pathSegment, { minLength: 1, maxLength: 6 }),
      query: fc.option(
        fc.array(fc.tuple(pathSegment, pathSegment), { maxLength: 3 }).map((pairs) => pairs.map(([k, v]) => `${k}=${v}`).join('&')),
      ),
    });
    await assertProperty(request, 450, async ({ method, segments, query }) => {
      const path = `/${segments.join('/')}${query ? `?${query}` : ''}`;
      // Inference POSTs on an odd path are still inference calls of some protocol: use the other account so nothing is billed on the main one.
      const answer = await check(
        surfaceOf(path),
        () =>
          probe(gateway.url, {
            method,
            path,
            headers: {
              authorization: `Bearer ${other.key}`,
              'x-api-key': other.key,
              'x-goog-api-key': other.key,
              'anthropic-version': '2023-06-01',
              'content-type': 'application/json',
            },
            body: method === 'GET' || method === 'HEAD' ? undefined : '{}',
          }),
        method,
      );
      void answer;
    });
  });

  it('management: hostile key bodies, CIDRs, quotas, names, ids, listing filters and logins', async () => {
    const cidr = fc.oneof(
      hostileText,
      fc.constantFrom(
        '0.0.0.0/0',
        '::/0',
        '1.2.3.4/33',
        '999.1.1.1',
        'fe80::1%eth0',
        '::ffff:1.2.3.4/200',
        '1.2.3.4/-1',
        ' 10.0.0.0/8 ',
        '10.0.0.0/08',
        '10.0.0.0/8/8',
        '::ffff:10.0.0.1',
        '1:2:3:4:5:6:7:8:9',
        '127.0.0.1',
        '::1',
        '0x7f.1',
        '2001:db8::/129',
      ),
    );
    const keyBody = fc.record(
      {
        name: fc.oneof(hostileValue, fc.constant('fuzz')),
        group_id: fc.oneof(fc.constant<Json>('default'), hostileValue),
        quota: hostileValue,
        expires_in_days: hostileValue,
        rate_limit_5h: hostileValue,
        rate_limit_1d: fc.oneof(hostileNumber, hostileText),
        ip_whitelist: fc.oneof(fc.array(cidr, { maxLength: 4 }) as fc.Arbitrary<Json>, hostileValue),
        ip_blacklist: fc.oneof(fc.array(cidr, { maxLength: 4 }) as fc.Arbitrary<Json>, hostileValue),
        custom_key: fc.oneof(hostileText, fc.constant('sk-svc-' + 'a'.repeat(40))),
        status: hostileValue,
      },
      { requiredKeys: [] },
    );
    const id = fc.oneof(pathSegment, fc.integer({ min: -5, max: 100 }).map(String));
    const operation = fc.oneof(
      fc.record({ method: fc.constant('POST'), path: fc.constant('/api/v1/keys'), body: keyBody.map(serialize) }),
      fc.record({ method: fc.constant('POST'), path: fc.constant('/v1/keys'), body: keyBody.map(serialize) }),
      fc.record({
        method: fc.constantFrom('GET', 'PUT', 'DELETE'),
        path: id.map((value) => `/api/v1/keys/${value}`),
        body: keyBody.map(serialize),
      }),
      fc.record({
        method: fc.constantFrom('GET', 'POST'),
        path: id.map((value) => `/api/v1/keys/${value}/reveal`),
        body: fc.constant('{}'),
      }),
      fc.record({ method: fc.constant('POST'), path: id.map((value) => `/api/v1/keys/${value}/rotate`), body: keyBody.map(serialize) }),
      fc.record({
        method: fc.constant('GET'),
        path: fc
          .tuple(
            fc.constantFrom('/api/v1/me/usage', '/api/v1/usage', '/api/v1/me/billing/transactions'),
            fc.array(fc.tuple(fc.constantFrom('limit', 'cursor', 'api_key_id', 'model', 'from', 'to', 'kind', 'x'), pathSegment), {
              maxLength: 4,
            }),
          )
          .map(([base, pairs]) => `${base}?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}`),
        body: fc.constant(''),
      }),
      fc.record({
        method: fc.constant('POST'),
        path: fc.constant('/api/v1/auth/login'),
        body: fc.record({ email: hostileValue, password: hostileValue }, { requiredKeys: [] }).map(serialize),
      }),
      fc.record({
        method: fc.constantFrom('GET', 'POST'),
        path: fc.constantFrom(
          '/api/v1/me/account',
          '/api/v1/me/available-models',
          '/api/v1/auth/session',
          '/api/v1/auth/logout',
          '/api/v1/dial/test',
          '/v1/models',
        ),
        body: fc.constant('{}'),
      }),
    );
    await assertProperty(operation, 700, async ({ method, path, body }) => {
      // Never the fuzzing key itself: a fuzzed PUT or DELETE on it would turn every later case into a 401.
      const target = path.replace(new RegExp(`/keys/${other.keyId}(?=/|$)`), '/keys/0');
      await check('gateway', () =>
        probe(gateway.url, {
          method,
          path: target,
          headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
          body: method === 'GET' ? undefined : body,
        }),
      );
    });
  });

  it('tasks and images: hostile submissions, task ids and streams', async () => {
    const submission = fc.record(
      {
        model: fc.oneof(fc.constantFrom<Json>('veo-3', 'gpt-image-1', 'gemini-2.5-flash-image', 'gpt-4.1'), hostileValue),
        prompt: fc.oneof(hostileValue, fc.constant('a cat')),
        prompts: hostileValue,
        duration_seconds: hostileNumber,
        resolution: hostileValue,
        aspect_ratio: hostileValue,
        image: hostileValue,
        n: hostileNumber,
        size: fc.oneof(hostileText, fc.constantFrom('1024x1024', '0x0', '99999x99999', '-1x-1')),
        quality: hostileValue,
        output_format: hostileValue,
        seed: hostileNumber,
        task_id: hostileValue,
      },
      { requiredKeys: ['model'] },
    );
    const operation = fc.oneof(
      fc.record({
        method: fc.constant('POST'),
        path: fc.constantFrom('/v1/tasks/submit', '/v1/images/generations', '/v1/tasks/query', '/v1/tasks/cancel'),
        body: submission.map(serialize),
      }),
      fc.record({ method: fc.constant('GET'), path: pathSegment.map((id) => `/v1/tasks/stream/${id}`), body: fc.constant('') }),
      fc.record({ method: fc.constant('POST'), path: fc.constant('/v1/images/edits'), body: fc.string({ maxLength: 200 }) }),
    );
    await assertProperty(operation, 250, async ({ method, path, body }) => {
      await check('gateway', () =>
        probe(gateway.url, {
          method,
          path,
          headers: {
            authorization: `Bearer ${other.key}`,
            'content-type': path.endsWith('edits') ? 'multipart/form-data; boundary=x' : 'application/json',
          },
          body: method === 'GET' ? undefined : body,
        }),
      );
    });
  });

  it("identifiers with U+0000 and unpaired surrogates are client errors in the caller's envelope (issue 21 finding 9)", async () => {
    const encoded = (id: string) => {
      try {
        return encodeURIComponent(id);
      } catch {
        return '%ED%A0%80';
      }
    };
    const operation = fc.oneof(
      hostileId.map((id) => ({
        surface: 'responses' as Surface,
        method: 'POST',
        path: '/v1/responses',
        body: JSON.stringify({ model: 'gpt-4.1', input: 'hi', previous_response_id: id }),
      })),
      fc
        .tuple(fc.constantFrom('/v1/tasks/query', '/v1/tasks/cancel'), hostileId)
        .map(([path, id]) => ({ surface: 'gateway' as Surface, method: 'POST', path, body: JSON.stringify({ task_id: id }) })),
      fc
        .tuple(fc.constantFrom('/v1/tasks/stream/', '/api/v1/keys/', '/v1/models/'), hostileId)
        .map(([base, id]) => ({ surface: 'gateway' as Surface, method: 'GET', path: `${base}${encoded(id)}`, body: undefined })),
      fc.tuple(fc.constantFrom('api_key_id', 'model', 'cursor'), hostileId).map(([name, id]) => ({
        surface: 'gateway' as Surface,
        method: 'GET',
        path: `/api/v1/me/usage?${name}=${encoded(id)}`,
        body: undefined,
      })),
    );
    await assertProperty(operation, 200, async ({ surface, method, path, body }) => {
      const answer = await check(surface, () =>
        probe(gateway.url, {
          method,
          path,
          headers: { authorization: `Bearer ${other.key}`, 'content-type': 'application/json' },
          body,
        }),
      );
      // A percent-encoded lone surrogate decodes to U+FFFD (a valid filter, hence a 200); nothing is a 5xx.
      expect(answer.status).toBeLessThan(500);
    });
  });

  it('afterwards: the process is alive and the wallet moved by exactly the usage rows of the calls that succeeded', async () => {
    expect((await probe(gateway.url, { method: 'GET', path: '/healthz' })).status).toBe(200);
    const { value } = await eventually(
      'every successful call billed',
      () => ledgerFigures(gateway.deps.db, gateway.accountId),
      (figures) => figures.usageRows >= succeeded,
      60_000,
    );
    const initial = 100 * 1_000_000;
    process.stdout.write(
      `\n[fuzz] ${succeeded} successful calls on the main account; usage rows ${value.usageRows}, wallet drop ${initial - value.balance}, Σ usage ${value.usageCredits}\n`,
    );
    expect(value.usageRows).toBe(succeeded);
    expect(initial - value.balance).toBe(value.usageCredits);
    expect(cases).toBeGreaterThanOrEqual(runs(3_000) * 0.99);
  });
});
