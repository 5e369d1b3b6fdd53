/**
 * Issue 22, item 1: every request that reached authentication is in `request_records` with the right
 * status, outcome and error class: a success, a refusal of each kind the gateway makes, upstream
 * errors (before and after the first byte), and client aborts. Unauthenticated calls are only counted.
 * Real gateway, simulator, PostgreSQL, Redis and request-log worker.
 */
import { publishKeyInvalidation } from '../../../src/auth/create-key-authenticator';
import { insertApiKey } from '../../../src/keys/insert-api-key';
import { addUpstreamAccount, createAccount, createGroup, findGroupId, topUp } from '../../../src/process/seed';
import { startRequestLogWorker, type RequestLogWorker } from '../../../workers/request-log-worker';
import { eventually } from '../billing/billing-fixtures';
import { startTestGateway, type TestGateway } from '../../support/gateway';

jest.setTimeout(90_000);

const MODEL = 'claude-sonnet-4-5';
const BODY = { model: MODEL, max_tokens: 16, messages: [{ role: 'user', content: 'Hello' }] };

interface Row {
  request_id: string;
  account_id: number;
  api_key_id: number | null;
  protocol: string;
  model: string | null;
  upstream_account_id: number | null;
  status: number;
  outcome: string;
  error_class: string | null;
  duration_ms: number;
  ttfb_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  cost_credits: number;
  stream: boolean;
  replayed: boolean;
}

describe('the request log records every authenticated request', () => {
  let gateway: TestGateway;
  let worker: RequestLogWorker;
  beforeAll(async () => {
    gateway = await startTestGateway({ s3: true, env: { UPSTREAM_COOLDOWN_MS: '1' } });
    worker = await startRequestLogWorker(gateway.deps, { lingerMs: 5, blockMs: 200 });
  });
  afterAll(async () => {
    await worker.close();
    await gateway.close();
  });

  async function chat(
    key: string,
    body: unknown = BODY,
    init: RequestInit = {},
  ): Promise<{ status: number; requestId: string; text: string }> {
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(body),
      ...init,
    });
    return { status: response.status, requestId: response.headers.get('x-request-id') ?? '', text: await response.text() };
  }

  // The final record (a provisional one, appended before the answer ended, comes first).
  const record = (requestId: string) =>
    eventually(
      `record ${requestId}`,
      async () =>
        (await gateway.deps.db.query<Row>('SELECT * FROM request_records WHERE request_id = $1 AND NOT provisional', [requestId])).rows[0],
      (row) => row !== undefined,
    );

  async function groupWith(
    name: string,
    prefixes: string[],
    options: { models?: string[] } = {},
  ): Promise<{ groupId: number; ids: number[] }> {
    const groupId = await createGroup(gateway.deps.db, { name, family: null });
    const ids: number[] = [];
    for (const [index, prefix] of prefixes.entries()) {
      ids.push(
        await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
          groupId,
          name: `${name}-${index}`,
          protocol: 'messages',
          baseUrl: gateway.sim.url + prefix,
          apiKey: 'sim-key',
          models: options.models ?? [MODEL],
          priority: index,
        }),
      );
    }
    gateway.services.upstreams.invalidate();
    return { groupId, ids };
  }

  async function keyIn(
    groupId: number,
    accountId = gateway.accountId,
    extra: Parameters<typeof insertApiKey>[2] extends infer K ? Partial<K> : never = {},
  ): Promise<string> {
    return (await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId, groupId, name: `k-${Math.random()}`, ...extra })).secret;
  }

  it('a success: ok, 200, the upstream account, tokens, cost, duration and time to first byte', async () => {
    const reply = await chat(gateway.key);
    expect(reply.status).toBe(200);
    const row = await record(reply.requestId);
    expect(row).toMatchObject({
      account_id: gateway.accountId,
      protocol: 'chat',
      model: MODEL,
      status: 200,
      outcome: 'ok',
      error_class: null,
      stream: false,
    });
    expect(row.upstream_account_id).not.toBeNull();
    expect(Number(row.input_tokens)).toBeGreaterThan(0);
    expect(Number(row.output_tokens)).toBeGreaterThan(0);
    expect(Number(row.cost_credits)).toBeGreaterThan(0);
    expect(row.ttfb_ms).not.toBeNull();
    expect(row.duration_ms).toBeGreaterThanOrEqual(row.ttfb_ms!);
  });

  it('a whole answer whose settlement could not append its record: the record goes before the answer ends, or later, and is written', async () => {
    const defaultGroup = (await findGroupId(gateway.deps.db, 'default'))!;
    const accountId = await createAccount(gateway.deps.db, { name: 'unridden', tier: 'pro' });
    await topUp(gateway.deps.db, accountId, 1_000_000_000, 'test');
    const key = await keyIn(defaultGroup, accountId);
    // The shard's request-log stream holds a string: the settlement's XADD of the record fails (and
    // with it that settlement), then the append before the end, then the producer's until it is gone.
    const stream = gateway.deps.redisKeys.accountRequestLogStream(accountId);
    await gateway.deps.redis.del(stream);
    await gateway.deps.redis.set(stream, 'not a stream');
    let reply: Awaited<ReturnType<typeof chat>>;
    try {
      reply = await chat(key);
      expect(reply.status).toBe(200);
      // Held in memory only for now.
      expect((await gateway.deps.db.query('SELECT 1 FROM request_records WHERE request_id = $1', [reply.requestId])).rowCount).toBe(0);
    } finally {
      await gateway.deps.redis.del(stream);
    }
    // Built at settlement: the usage and cost of the answer.
    const row = await record(reply.requestId);
    expect(row).toMatchObject({ account_id: accountId, status: 200, outcome: 'ok', error_class: null });
    expect(Number(row.cost_credits)).toBeGreaterThan(0);
  });

  it('the gateway refusals, each with its status and class, free of charge', async () => {
    const defaultGroup = (await findGroupId(gateway.deps.db, 'default'))!;
    const openaiGroup = (await findGroupId(gateway.deps.db, 'openai'))!;
    // Keys whose spend window or lifetime quota is spent by their first call.
    const spent = async (limits: { rateLimit5h?: number; rateLimit1d?: number; rateLimit7d?: number; quotaCredits?: number }) => {
      const key = await keyIn(defaultGroup, gateway.accountId, limits);
      expect((await chat(key)).status).toBe(200);
      return key;
    };
    const cases: Array<{ name: string; key: string; body?: unknown; status: number; errorClass: string; message: RegExp }> = [
      {
        name: 'a body that fails validation',
        key: gateway.key,
        body: { model: MODEL },
        status: 400,
        errorClass: 'invalid_request',
        message: /messages/,
      },
      {
        name: 'an unknown model',
        key: gateway.key,
        body: { ...BODY, model: 'no-such-model' },
        status: 400,
        errorClass: 'unsupported_model',
        message: /no-such-model is not supported/,
      },
      {
        name: 'a feature the model does not support',
        key: gateway.key,
        body: { ...BODY, model: 'gpt-5', logprobs: true },
        status: 400,
        errorClass: 'unsupported_feature',
        message: /does not support logprobs/,
      },
      {
        name: "a model not offered on the caller's protocol",
        key: gateway.key,
        body: { ...BODY, model: 'gpt-image-1' },
        status: 400,
        errorClass: 'protocol_unavailable',
        message: /cannot be called with the Chat Completions protocol/,
      },
      {
        name: "the key's IP rules",
        key: await keyIn(defaultGroup, gateway.accountId, { ipBlacklist: ['127.0.0.1', '::1', '::ffff:127.0.0.1'] }),
        status: 403,
        errorClass: 'permission',
        message: /127\.0\.0\.1|::1/,
      },
      {
        name: "the key's model allowlist",
        key: await keyIn(defaultGroup, gateway.accountId, { allowedModels: ['claude-haiku-4-5'] }),
        status: 403,
        errorClass: 'permission',
        message: new RegExp(`model not allowed for this key: ${MODEL}`),
      },
      {
        name: 'an empty wallet',
        key: await keyIn(defaultGroup, await createAccount(gateway.deps.db, { name: 'broke', tier: 'pro' })),
        status: 402,
        errorClass: 'insufficient_balance',
        message: /insufficient balance/,
      },
      {
        name: "the key's lifetime quota",
        key: await spent({ quotaCredits: 1 }),
        status: 402,
        errorClass: 'insufficient_balance',
        message: /API key quota exhausted/,
      },
      {
        name: 'the 5-hour spend window',
        key: await spent({ rateLimit5h: 1 }),
        status: 429,
        errorClass: 'rate_limit',
        message: /rate_limit_5h exhausted/,
      },
      {
        name: 'the 1-day spend window',
        key: await spent({ rateLimit1d: 1 }),
        status: 429,
        errorClass: 'rate_limit',
        message: /rate_limit_1d exhausted/,
      },
      {
        name: 'the 7-day spend window',
        key: await spent({ rateLimit7d: 1 }),
        status: 429,
        errorClass: 'rate_limit',
        message: /rate_limit_7d exhausted/,
      },
      {
        name: "a model outside the group's family",
        key: await keyIn(openaiGroup),
        status: 503,
        errorClass: 'no_available_account',
        message: /group openai does not route model/,
      },
      {
        name: 'no account of the group serves the model',
        key: await keyIn((await groupWith('serves-other', [''], { models: ['claude-haiku-4-5'] })).groupId),
        status: 503,
        errorClass: 'no_available_account',
        message: /no available account/,
      },
    ];
    const seen: unknown[] = [];
    for (const refusal of cases) {
      const reply = await chat(refusal.key, refusal.body ?? BODY);
      const row = await record(reply.requestId);
      seen.push({
        name: refusal.name,
        status: reply.status,
        message: refusal.message.test(reply.text),
        record: { status: row.status, outcome: row.outcome, error_class: row.error_class, cost_credits: Number(row.cost_credits) },
      });
    }
    // One comparison of the whole table: a failure names every case that went wrong.
    expect(seen).toEqual(
      cases.map((refusal) => ({
        name: refusal.name,
        status: refusal.status,
        message: true,
        record: { status: refusal.status, outcome: 'error', error_class: refusal.errorClass, cost_credits: 0 },
      })),
    );
  });

  it('a key revoked while its call waits for the upstream: 401, recorded as authentication', async () => {
    const hanging = await groupWith('hang-revoked', ['/_fault/hang']);
    const accountId = await createAccount(gateway.deps.db, { name: 'revoked-mid-call', tier: 'pro' });
    await topUp(gateway.deps.db, accountId, 1_000_000_000);
    const key = await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId, groupId: hanging.groupId, name: 'revoked' });
    const reply = chat(key.secret);
    // The call holds its lease once admitted, and waits on the silent upstream.
    await eventually(
      'the call to be admitted',
      () => gateway.deps.redis.zcard(gateway.deps.redisKeys.accountLeases(accountId)),
      (leases) => leases >= 1,
    );
    await gateway.deps.db.query("UPDATE api_keys SET status = 'revoked' WHERE id = $1", [key.id]);
    await publishKeyInvalidation(gateway.deps, gateway.deps.crypto.hmac(key.secret));
    const refused = await reply;
    expect(refused.status).toBe(401);
    expect(refused.text).toContain('API key was revoked, rotated or deleted');
    expect(await record(refused.requestId)).toMatchObject({
      account_id: accountId,
      status: 401,
      outcome: 'error',
      error_class: 'authentication',
      cost_credits: 0,
    });
  });

  it('a key revoked after its stream began: cut with the error frame, recorded as authentication', async () => {
    const slow = await groupWith('slow-revoked', ['/_latency/0/150']);
    const accountId = await createAccount(gateway.deps.db, { name: 'revoked-mid-stream', tier: 'pro' });
    await topUp(gateway.deps.db, accountId, 1_000_000_000);
    const key = await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId, groupId: slow.groupId, name: 'revoked' });
    const response = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.secret}` },
      body: JSON.stringify({ ...BODY, stream: true }),
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    await gateway.deps.db.query("UPDATE api_keys SET status = 'revoked' WHERE id = $1", [key.id]);
    await publishKeyInvalidation(gateway.deps, gateway.deps.crypto.hmac(key.secret));
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) text += decoder.decode(chunk.value, { stream: true });
    expect(text).toContain('API key was revoked, rotated or deleted');
    expect(await record(response.headers.get('x-request-id') ?? '')).toMatchObject({
      account_id: accountId,
      status: 200,
      outcome: 'error',
      error_class: 'authentication',
      stream: true,
    });
  });

  it('upstream errors: every account failing, a refusal passed on, a stream cut after its first byte', async () => {
    const failing = await groupWith('all-fail', ['/_fault/429', '/_fault/500']);
    const failed = await chat(await keyIn(failing.groupId));
    expect(failed.status).toBe(502);
    expect(await record(failed.requestId)).toMatchObject({
      status: 502,
      outcome: 'error',
      error_class: 'upstream_error',
      upstream_account_id: failing.ids[1],
    });

    const limited = await groupWith('limited', ['/_fault/429']);
    const refused = await chat(await keyIn(limited.groupId));
    expect(refused.status).toBe(429);
    expect(await record(refused.requestId)).toMatchObject({ status: 429, outcome: 'error', error_class: 'upstream_rate_limit' });

    const cut = await groupWith('cut', ['/_fault/error-event']);
    const streamed = await chat(await keyIn(cut.groupId), { ...BODY, stream: true });
    expect(streamed.status).toBe(200);
    const row = await record(streamed.requestId);
    expect(row).toMatchObject({ status: 200, outcome: 'error', stream: true, cost_credits: 0 });
    expect(row.error_class).toMatch(/^upstream_/);
  });

  it('client aborts: before the first byte (499) and mid-stream (billed, the status sent); a concurrency refusal meanwhile', async () => {
    const accountId = await createAccount(gateway.deps.db, { name: 'capped', tier: 'pro', concurrencyCap: 1 });
    await topUp(gateway.deps.db, accountId, 1_000_000_000);
    const hanging = await groupWith('hang', ['/_fault/hang']);
    const key = await keyIn(hanging.groupId, accountId);
    const controller = new AbortController();
    const response = fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify(BODY),
      signal: controller.signal,
    }).catch(() => undefined);
    // The hanging request holds the account's one lease: the next one is refused.
    await eventually(
      'the hanging request to hold the lease',
      () => gateway.deps.redis.zcard(gateway.deps.redisKeys.accountLeases(accountId)),
      (leases) => leases >= 1,
    );
    const refused = await chat(key);
    expect(refused.status).toBe(429);
    expect(await record(refused.requestId)).toMatchObject({ status: 429, outcome: 'error', error_class: 'concurrency_limit' });
    controller.abort();
    await response;
    const aborted = await eventually(
      'the aborted request',
      async () =>
        (await gateway.deps.db.query<Row>("SELECT * FROM request_records WHERE account_id = $1 AND outcome = 'aborted'", [accountId])).rows,
      (rows) => rows.length === 1,
    );
    expect(aborted[0]).toMatchObject({ status: 499, error_class: 'client_abort', cost_credits: 0, upstream_account_id: hanging.ids[0] });

    const slow = await groupWith('slow', ['/_latency/0/150']);
    const streamKey = await keyIn(slow.groupId);
    const midStream = new AbortController();
    const streaming = await fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${streamKey}` },
      body: JSON.stringify({ ...BODY, max_tokens: 200, stream: true }),
      signal: midStream.signal,
    });
    const requestId = streaming.headers.get('x-request-id')!;
    const reader = streaming.body!.getReader();
    await reader.read();
    midStream.abort();
    await reader.read().catch(() => undefined);
    expect(await record(requestId)).toMatchObject({ status: 200, outcome: 'aborted', error_class: 'client_abort', stream: true });
  });

  it('images and count_tokens are recorded under their surface; an idempotent replay is marked replayed', async () => {
    const image = async () => {
      const response = await fetch(`${gateway.url}/v1/images/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${gateway.key}`, 'idempotency-key': 'log-replay-1' },
        body: JSON.stringify({ model: 'gpt-image-1', prompt: 'a lighthouse', size: '1024x1024', n: 1 }),
      });
      const text = await response.text();
      return { status: response.status, text, requestId: response.headers.get('x-request-id')! };
    };
    const first = await image();
    expect(first.text).toContain('"data"');
    const again = await image();
    expect(again.status).toBe(first.status);
    const billed = await record(first.requestId);
    expect(billed).toMatchObject({ protocol: 'images', model: 'gpt-image-1', replayed: false, status: 200, outcome: 'ok' });
    expect(billed.cost_credits).toBeGreaterThan(0);
    expect(await record(again.requestId)).toMatchObject({ protocol: 'images', replayed: true, status: 200 });

    const counted = await fetch(`${gateway.url}/v1/messages/count_tokens`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': gateway.key, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: MODEL, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    await counted.text();
    expect(await record(counted.headers.get('x-request-id')!)).toMatchObject({
      protocol: 'count-tokens',
      status: 200,
      outcome: 'ok',
      cost_credits: 0,
    });
  });

  it('unauthenticated calls are counted in metrics, never stored', async () => {
    const before = (await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM request_records')).rows[0]!.n;
    const reply = await chat('sk-not-a-key-at-all-000000000000');
    expect(reply.status).toBe(401);
    const metrics = await gateway.deps.metrics.registry.getSingleMetricAsString('gateway_unauthenticated_requests_total');
    expect(metrics).toMatch(/gateway_unauthenticated_requests_total\{route="chat"\} [1-9]/);
    await gateway.services.requestLog.producer!.flush();
    const success = await chat(gateway.key);
    await record(success.requestId);
    const after = (await gateway.deps.db.query<{ n: string }>('SELECT count(*) AS n FROM request_records')).rows[0]!.n;
    expect(Number(after)).toBe(Number(before) + 1);
  });
});
