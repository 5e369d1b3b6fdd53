/**
 * Issue 6 acceptance through the real inference relay (not the probe route): a key deleted, rotated
 * or disabled on instance B cuts a stream served by instance A with each protocol's authentication
 * error frame, as each official SDK sees it; IP rules from distinct loopback addresses and through a
 * trusted proxy; the account concurrency cap; a rolling spend window with its accounting headers; and
 * 200 concurrent calls against a key quota with the billing worker writing the usage rows.
 */
import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { Agent, request } from 'undici';
import { addUpstreamAccount, createAccount, createGroup, topUp } from '../../src/process/seed';
import type { Protocol } from '../../src/ir/protocol';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { startBillingWorker, type BillingWorker } from '../../workers/billing-worker';
import { startTestGateway, type ApiInstance, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

/** Streams from this group are slow (40 ms between frames), so a key change lands mid-stream. */
const SLOW_GROUP = 'slow-streams';
/** 300 chunks at 40 ms: about 12 s if nothing cuts it. */
const LONG_PROMPT = 'repeat:300:tick ';
const STREAM_CAP = 2_000;
const VERSION = { 'anthropic-version': '2023-06-01' };

interface ErrorEnvelope {
  type?: string;
  error?: { type?: string; code?: string | null; message?: string; status?: string };
}

interface JsonAnswer {
  status: number;
  body: unknown;
  headers: Headers;
}

function envelope(body: unknown): ErrorEnvelope {
  return typeof body === 'object' && body !== null ? (body as ErrorEnvelope) : {};
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

async function callJson(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: unknown } = {},
): Promise<JsonAnswer> {
  const response = await fetch(url, {
    method: init.method ?? 'GET',
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  return { status: response.status, body: await readJson(response), headers: response.headers };
}

/** USD as the gateway writes it (`0.037548`), computed here without the gateway's formatter. */
function usd(credits: number): string {
  return String(Math.max(credits, 0) / 1_000_000);
}

async function eventually<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (last: ${JSON.stringify(value)})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// ---------------------------------------------------------------------------------------------
// One official SDK per protocol: a long stream, a whole call, and what its auth error looks like.

interface OpenStream {
  /** Settles at the first text delta the SDK delivered, or when the stream ended before any. */
  started: Promise<void>;
  deltas(): number;
  /** The SDK's error if the stream failed, else 'completed'. */
  outcome: Promise<unknown>;
}

interface ProtocolDriver {
  protocol: Protocol;
  openStream(baseUrl: string, secret: string): OpenStream;
  /** A whole (non-streamed) call; the HTTP status the SDK saw, 200 on success. */
  callStatus(baseUrl: string, secret: string): Promise<number>;
  /** Asserts that `error` is the SDK's reading of the protocol's authentication error frame. */
  expectAuthFrame(error: unknown): void;
}

function deltaCounter(): { hit: () => void; open: (final: Promise<unknown>) => OpenStream } {
  let count = 0;
  let markStarted: () => void = () => undefined;
  const started = new Promise<void>((resolve) => {
    markStarted = resolve;
  });
  return {
    hit: () => {
      count++;
      markStarted();
    },
    open(final) {
      const outcome = final.then(
        () => 'completed',
        (error: unknown) => error,
      );
      return { started: Promise.race([started, outcome.then(() => undefined)]), deltas: () => count, outcome };
    },
  };
}

async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
    return 200;
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number') return status;
    throw error;
  }
}

const messagesDriver: ProtocolDriver = {
  protocol: 'messages',
  openStream(baseUrl, secret) {
    const client = new Anthropic({ apiKey: secret, baseURL: baseUrl, maxRetries: 0 });
    const stream = client.messages.stream({
      model: 'claude-haiku-4-5',
      max_tokens: STREAM_CAP,
      messages: [{ role: 'user', content: LONG_PROMPT }],
    });
    const counter = deltaCounter();
    stream.on('text', counter.hit);
    return counter.open(stream.finalMessage());
  },
  callStatus(baseUrl, secret) {
    const client = new Anthropic({ apiKey: secret, baseURL: baseUrl, maxRetries: 0 });
    return statusOf(client.messages.create({ model: 'claude-haiku-4-5', max_tokens: 32, messages: [{ role: 'user', content: 'ping' }] }));
  },
  expectAuthFrame(error) {
    expect(error).toBeInstanceOf(Anthropic.APIError);
    expect(error).toMatchObject({ type: 'authentication_error', error: { type: 'error', error: { type: 'authentication_error' } } });
  },
};

const chatDriver: ProtocolDriver = {
  protocol: 'chat',
  openStream(baseUrl, secret) {
    const client = new OpenAI({ apiKey: secret, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    const stream = client.chat.completions.stream({
      model: 'gpt-4.1',
      max_tokens: STREAM_CAP,
      messages: [{ role: 'user', content: LONG_PROMPT }],
    });
    const counter = deltaCounter();
    stream.on('content', counter.hit);
    return counter.open(stream.finalChatCompletion());
  },
  callStatus(baseUrl, secret) {
    const client = new OpenAI({ apiKey: secret, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    return statusOf(client.chat.completions.create({ model: 'gpt-4.1', max_tokens: 32, messages: [{ role: 'user', content: 'ping' }] }));
  },
  expectAuthFrame(error) {
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
  },
};

const responsesDriver: ProtocolDriver = {
  protocol: 'responses',
  openStream(baseUrl, secret) {
    const client = new OpenAI({ apiKey: secret, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    const stream = client.responses.stream({ model: 'gpt-4.1', max_output_tokens: STREAM_CAP, input: LONG_PROMPT });
    const counter = deltaCounter();
    stream.on('response.output_text.delta', counter.hit);
    return counter.open(stream.finalResponse());
  },
  callStatus(baseUrl, secret) {
    const client = new OpenAI({ apiKey: secret, baseURL: `${baseUrl}/v1`, maxRetries: 0 });
    return statusOf(client.responses.create({ model: 'gpt-4.1', max_output_tokens: 32, input: 'ping' }));
  },
  expectAuthFrame(error) {
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect(error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
  },
};

const generateContentDriver: ProtocolDriver = {
  protocol: 'generate-content',
  openStream(baseUrl, secret) {
    const ai = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl, apiVersion: 'v1beta' } });
    const counter = deltaCounter();
    const final = (async () => {
      const stream = await ai.models.generateContentStream({
        model: 'gemini-2.5-flash',
        contents: LONG_PROMPT,
        config: { maxOutputTokens: STREAM_CAP },
      });
      for await (const chunk of stream) if (chunk.text) counter.hit();
    })();
    return counter.open(final);
  },
  callStatus(baseUrl, secret) {
    const ai = new GoogleGenAI({ apiKey: secret, httpOptions: { baseUrl, apiVersion: 'v1beta' } });
    return statusOf(ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'ping', config: { maxOutputTokens: 32 } }));
  },
  expectAuthFrame(error) {
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 401, message: expect.stringContaining('UNAUTHENTICATED') });
  },
};

const DRIVERS: ProtocolDriver[] = [messagesDriver, chatDriver, responsesDriver, generateContentDriver];

// ---------------------------------------------------------------------------------------------

describe('keys, authentication and admission through the inference relay', () => {
  let gateway: TestGateway;
  let b: ApiInstance;
  let slowGroupId: number;
  const agents = new Map<string, Agent>();

  beforeAll(async () => {
    // 127.0.0.1 (every plain call of this file) is the trusted proxy: without X-Forwarded-For it is the caller itself.
    gateway = await startTestGateway({ env: { TRUSTED_PROXIES: '127.0.0.1/32' } });
    slowGroupId = await createGroup(gateway.deps.db, { name: SLOW_GROUP, family: null });
    for (const protocol of ['messages', 'chat', 'responses', 'generate-content'] as const) {
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId: slowGroupId,
        name: `slow ${protocol}`,
        protocol,
        baseUrl: `${gateway.sim.url}/_latency/0/40`,
        apiKey: 'sim-key',
        models: ['*'],
      });
    }
    gateway.services.upstreams.invalidate();
    b = await gateway.startSecondInstance();
  });
  afterAll(async () => {
    for (const agent of agents.values()) await agent.close();
    await b?.close();
    await gateway?.close();
  });

  /** Key management with the bootstrap key (account with 100 USD, tier pro). */
  const manage = (instance: ApiInstance, path: string, method = 'GET', body?: unknown) =>
    callJson(`${instance.url}${path}`, { method, headers: { 'x-api-key': gateway.key }, body });

  async function createKey(body: Record<string, unknown>): Promise<{ id: number; secret: string }> {
    const created = await manage(gateway, '/api/v1/keys', 'POST', body);
    expect(created.status).toBe(201);
    const presented = created.body as { id: number; key: string };
    return { id: presented.id, secret: presented.key };
  }

  describe('a key changed on instance B cuts a stream served by instance A with the auth error frame', () => {
    type Action = 'delete' | 'rotate' | 'disable';
    const ACTIONS: Action[] = ['delete', 'rotate', 'disable'];

    /** Applies the change through instance B; returns the new secret for a rotation. */
    async function apply(action: Action, id: number): Promise<string | undefined> {
      switch (action) {
        case 'delete': {
          const deleted = await manage(b, `/api/v1/keys/${id}`, 'DELETE');
          expect(deleted.status).toBe(200);
          return undefined;
        }
        case 'rotate': {
          const rotated = await manage(b, `/api/v1/keys/${id}/rotate`, 'POST');
          expect(rotated.status).toBe(200);
          return (rotated.body as { key: string }).key;
        }
        case 'disable': {
          const disabled = await manage(b, `/api/v1/keys/${id}`, 'PUT', { status: 'disabled' });
          expect(disabled.status).toBe(200);
          return undefined;
        }
      }
    }

    describe.each(DRIVERS.map((driver) => [driver.protocol, driver] as const))('%s', (_protocol, driver) => {
      it.each(ACTIONS)('%s', async (action) => {
        const { id, secret } = await createKey({ name: `${driver.protocol} ${action}`, group_id: SLOW_GROUP });
        const stream = driver.openStream(gateway.url, secret);
        await stream.started;
        expect(stream.deltas()).toBeGreaterThan(0);

        const fresh = await apply(action, id);
        const outcome = await stream.outcome;
        expect(outcome).not.toBe('completed');
        driver.expectAuthFrame(outcome);
        // Cut long before its 300 chunks.
        expect(stream.deltas()).toBeLessThan(150);

        // The next call with that secret is refused on both instances.
        expect(await driver.callStatus(gateway.url, secret)).toBe(401);
        expect(await driver.callStatus(b.url, secret)).toBe(401);
        if (action === 'rotate') {
          expect(await driver.callStatus(gateway.url, fresh!)).toBe(200);
          expect(await driver.callStatus(b.url, fresh!)).toBe(200);
        }
        if (action === 'disable') {
          expect((await manage(b, `/api/v1/keys/${id}`, 'PUT', { status: 'active' })).status).toBe(200);
          expect(await driver.callStatus(gateway.url, secret)).toBe(200);
        }
      });
    });

    it('a key deleted while the upstream has not answered yet: the stream never runs on the dead key', async () => {
      // The upstream sends its headers only after 1 s (many providers answer headers with the first token).
      const groupId = await createGroup(gateway.deps.db, { name: 'late-headers', family: null });
      await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
        groupId,
        name: 'late headers',
        protocol: 'messages',
        baseUrl: `${gateway.sim.url}/_fault/slow-first-byte/_latency/1000/20`,
        apiKey: 'sim-key',
        models: ['*'],
      });
      gateway.services.upstreams.invalidate();
      const { id, secret } = await createKey({ name: 'deleted before the first byte', group_id: 'late-headers' });
      gateway.sim.clearRequests();
      const marker = 'late-headers-marker';
      const pending = fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': secret, ...VERSION },
        body: JSON.stringify({
          model: 'claude-haiku-4-5',
          max_tokens: 1_000,
          stream: true,
          messages: [{ role: 'user', content: `repeat:40:${marker} ` }],
        }),
      });
      // Admitted and waiting on the upstream: the simulator has the request.
      await eventually(
        'the upstream request',
        async () => gateway.sim.requests.some((r) => JSON.stringify(r.body).includes(marker)),
        (seen) => seen,
        5_000,
      );
      expect((await manage(b, `/api/v1/keys/${id}`, 'DELETE')).status).toBe(200);
      const response = await pending;
      const text = await response.text();
      // Either a 401 before the first byte or the auth error frame; never the whole answer on a deleted key.
      expect(text).toContain('authentication_error');
      expect(text).not.toContain('message_stop');
    });
  });

  describe('IP rules through inference', () => {
    function from(address: string): Agent {
      let agent = agents.get(address);
      if (!agent) {
        agent = new Agent({ localAddress: address });
        agents.set(address, agent);
      }
      return agent;
    }

    /** A Messages or Chat call from a loopback source address, optionally with X-Forwarded-For. */
    async function callFrom(
      source: string,
      protocol: 'messages' | 'chat',
      secret: string,
      forwardedFor?: string,
    ): Promise<{ status: number; body: ErrorEnvelope; headers: Record<string, string | string[] | undefined> }> {
      const messages = protocol === 'messages';
      const response = await request(`${gateway.url}${messages ? '/v1/messages' : '/v1/chat/completions'}`, {
        method: 'POST',
        dispatcher: from(source),
        headers: {
          'content-type': 'application/json',
          ...(messages ? { 'x-api-key': secret, ...VERSION } : { authorization: `Bearer ${secret}` }),
          ...(forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor }),
        },
        body: JSON.stringify(
          messages
            ? { model: 'claude-haiku-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'from where?' }] }
            : { model: 'gpt-4.1', max_tokens: 16, messages: [{ role: 'user', content: 'from where?' }] },
        ),
      });
      return { status: response.statusCode, body: envelope(await response.body.json()), headers: response.headers };
    }

    it('a whitelist admits 127.0.0.2 and refuses 127.0.0.3 with 403 in each envelope, with the accounting headers', async () => {
      const { secret } = await createKey({ name: 'whitelist', group_id: 'default', ip_whitelist: ['127.0.0.2/32'] });
      expect((await callFrom('127.0.0.2', 'messages', secret)).status).toBe(200);
      expect((await callFrom('127.0.0.2', 'chat', secret)).status).toBe(200);

      const messages = await callFrom('127.0.0.3', 'messages', secret);
      expect(messages.status).toBe(403);
      expect(messages.body).toEqual({ type: 'error', error: { type: 'permission_error', message: expect.stringContaining('127.0.0.3') } });
      expect(messages.headers['x-quota-remaining-credits']).toMatch(/^\d+$/);
      expect(messages.headers['x-ratelimit-limit-requests']).toBe('25');

      const chat = await callFrom('127.0.0.3', 'chat', secret);
      expect(chat.status).toBe(403);
      expect(chat.body.error).toMatchObject({ type: 'permission_error', code: 'permission_denied' });
      expect(chat.headers['x-quota-remaining-credits']).toMatch(/^\d+$/);

      // The trusted proxy itself, forwarding nothing, is the caller: outside the whitelist.
      expect((await callFrom('127.0.0.1', 'chat', secret)).status).toBe(403);
    });

    it('the blacklist wins over the whitelist', async () => {
      const { secret } = await createKey({
        name: 'black beats white',
        group_id: 'default',
        ip_whitelist: ['127.0.0.0/8'],
        ip_blacklist: ['127.0.0.3'],
      });
      expect((await callFrom('127.0.0.2', 'messages', secret)).status).toBe(200);
      const refused = await callFrom('127.0.0.3', 'messages', secret);
      expect(refused.status).toBe(403);
      expect(refused.body.error?.type).toBe('permission_error');
      expect((await callFrom('127.0.0.3', 'chat', secret)).body.error?.code).toBe('permission_denied');
    });

    it('through the trusted proxy X-Forwarded-For decides; from any other peer it is ignored', async () => {
      const { secret } = await createKey({ name: 'behind proxy', group_id: 'default', ip_whitelist: ['127.0.0.2/32'] });
      expect((await callFrom('127.0.0.1', 'messages', secret, '127.0.0.2')).status).toBe(200);
      expect((await callFrom('127.0.0.1', 'messages', secret, '127.0.0.3')).status).toBe(403);
      // A spoofed left part is not believed: the right-most untrusted hop is the caller.
      expect((await callFrom('127.0.0.1', 'chat', secret, '127.0.0.3, 127.0.0.2')).status).toBe(200);
      expect((await callFrom('127.0.0.1', 'chat', secret, '127.0.0.2, 127.0.0.3')).status).toBe(403);
      // An untrusted peer cannot claim another address.
      expect((await callFrom('127.0.0.3', 'chat', secret, '127.0.0.2')).status).toBe(403);
      expect((await callFrom('127.0.0.2', 'chat', secret, '127.0.0.3')).status).toBe(200);

      const { secret: blocked } = await createKey({ name: 'blocked behind proxy', group_id: 'default', ip_blacklist: ['127.0.0.3/32'] });
      expect((await callFrom('127.0.0.1', 'messages', blocked, '127.0.0.3')).status).toBe(403);
      expect((await callFrom('127.0.0.1', 'messages', blocked, '127.0.0.2')).status).toBe(200);
    });
  });

  describe('account concurrency through the relay (free tier: 5)', () => {
    let secret: string;
    beforeAll(async () => {
      const accountId = await createAccount(gateway.deps.db, { name: 'free tier', tier: 'free' });
      await topUp(gateway.deps.db, accountId, 10_000_000, `free-${accountId}`);
      // A 5 h window, so the refusal can show that the window headers come without a reset time.
      secret = (
        await insertApiKey(gateway.deps.db, gateway.deps.crypto, {
          accountId,
          groupId: slowGroupId,
          name: 'free key',
          rateLimit5h: 10_000_000,
        })
      ).secret;
    });

    /** A slow Messages stream (about 2 s); resolves at the response headers. */
    const slowStream = () =>
      fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': secret, ...VERSION },
        body: JSON.stringify({
          model: 'claude-sonnet-4-5',
          max_tokens: 1_000,
          stream: true,
          messages: [{ role: 'user', content: 'repeat:50:slow ' }],
        }),
      });
    const chat = () =>
      callJson(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}` },
        body: { model: 'gpt-4.1', max_tokens: 16, messages: [{ role: 'user', content: 'one more' }] },
      });

    it('6 simultaneous slow Messages streams: exactly one 429 concurrency refusal; afterwards calls pass', async () => {
      const responses = await Promise.all(Array.from({ length: 6 }, () => slowStream()));
      const refused = responses.filter((response) => response.status === 429);
      const admitted = responses.filter((response) => response.status === 200);
      expect(refused).toHaveLength(1);
      expect(admitted).toHaveLength(5);

      const [refusal] = refused;
      const body = envelope(await readJson(refusal));
      expect(body).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: expect.stringMatching(/concurrent/) } });
      expect(refusal.headers.get('x-ratelimit-reset')).toBeNull();
      expect(refusal.headers.get('x-ratelimit-limit')).toBe('10');
      expect(refusal.headers.get('retry-after')).toBe('1');
      expect(refusal.headers.get('x-ratelimit-limit-requests')).toBe('5');
      expect(refusal.headers.get('x-ratelimit-remaining-requests')).toBe('0');

      const texts = await Promise.all(admitted.map((response) => response.text()));
      for (const text of texts) expect(text).toContain('event: message_stop');
      expect((await chat()).status).toBe(200);
    });

    it('with 5 streams open a Chat call gets code concurrency_limit, without X-RateLimit-Reset; after they end it passes', async () => {
      const open = await Promise.all(Array.from({ length: 5 }, () => slowStream()));
      expect(open.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
      const refused = await chat();
      expect(refused.status).toBe(429);
      expect(envelope(refused.body).error).toMatchObject({ type: 'rate_limit_error', code: 'concurrency_limit' });
      expect(refused.headers.get('x-ratelimit-reset')).toBeNull();
      expect(refused.headers.get('x-ratelimit-limit')).toBe('10');
      expect(refused.headers.get('x-quota-remaining-credits')).toMatch(/^\d+$/);

      for (const text of await Promise.all(open.map((response) => response.text()))) expect(text).toContain('event: message_stop');
      expect((await chat()).status).toBe(200);
    });
  });

  describe('a rolling spend window through the relay', () => {
    const LIMIT_5H = 30_000; // $0.03
    const QUOTA = 1_000_000; // $1: the quota figure is then exact whatever the wallet holds
    const messagesCall = (secret: string, body: Record<string, unknown> = {}) =>
      callJson(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': secret, ...VERSION },
        body: { model: 'claude-sonnet-4-5', max_tokens: 1_000, messages: [{ role: 'user', content: 'repeat:500:abcd ' }], ...body },
      });

    function expectMessagesFamily(headers: Headers): void {
      expect(headers.get('x-ratelimit-limit-requests')).toBe('25');
      expect(headers.get('x-ratelimit-remaining-requests')).toMatch(/^\d+$/);
      expect(headers.get('x-ratelimit-reset-requests')).toMatch(/^[01]$/);
      // Documented: no token-rate limit exists, so both token figures are 1e9 (docs/admission.md section 6).
      expect(headers.get('x-ratelimit-limit-tokens')).toBe('1000000000');
      expect(headers.get('x-ratelimit-remaining-tokens')).toBe('1000000000');
    }

    it('rate_limit_5h of $0.03: 429 naming the bucket with the right reset; headers on every answer', async () => {
      const { secret } = await createKey({ name: 'five hours', group_id: 'default', rate_limit_5h: 0.03, rate_limit_1d: 1, quota: 1 });
      const minuteBefore = Math.floor(Date.now() / 60_000);
      let spent = 0;
      let reset: string | null = null;
      let refusal: JsonAnswer | undefined;
      let last: JsonAnswer | undefined;
      for (let call = 0; call < 10 && !refusal; call++) {
        const answer = await messagesCall(secret);
        if (answer.status === 429) {
          refusal = answer;
          break;
        }
        expect(answer.status).toBe(200);
        if (call === 0) {
          // The window next gains room when its oldest spend (this call's minute) leaves it, 5 h later.
          const minuteAfter = Math.floor(Date.now() / 60_000);
          reset = answer.headers.get('x-ratelimit-reset');
          expect([String((minuteBefore + 300) * 60), String((minuteAfter + 300) * 60)]).toContain(reset);
        }
        const cost = Number(answer.headers.get('x-request-cost-credits'));
        expect(cost).toBeGreaterThan(5_000);
        spent += cost;
        // A whole answer reports the figures after its own charge; the 5 h window is the tightest.
        expect(answer.headers.get('x-ratelimit-limit')).toBe('0.03');
        expect(answer.headers.get('x-ratelimit-remaining')).toBe(usd(LIMIT_5H - spent));
        expect(answer.headers.get('x-ratelimit-reset')).toBe(reset);
        expect(answer.headers.get('x-quota-remaining-credits')).toBe(String(QUOTA - spent));
        expectMessagesFamily(answer.headers);
        last = answer;
      }
      // Admission admits while there is room: the last admitted call overshoots, the next is refused.
      expect(spent).toBeGreaterThan(LIMIT_5H);
      expect(refusal).toBeDefined();
      const refused = refusal!;
      const resetIso = new Date(Number(reset) * 1000).toISOString();
      expect(envelope(refused.body)).toEqual({
        type: 'error',
        error: {
          type: 'rate_limit_error',
          message: `rate_limit_5h exhausted: used $${usd(spent)} of $0.03 in the rolling 5-hour window; resets at ${resetIso}`,
        },
      });
      expect(refused.headers.get('x-ratelimit-limit')).toBe('0.03');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(refused.headers.get('x-ratelimit-reset')).toBe(reset);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThan(5 * 3600 - 180);
      expect(retryAfter).toBeLessThanOrEqual(5 * 3600 + 60);
      // A refusal is free: the figures are those of the last success.
      expect(refused.headers.get('x-quota-remaining-credits')).toBe(last!.headers.get('x-quota-remaining-credits'));
      expectMessagesFamily(refused.headers);

      // The Chat envelope of the same refusal, and a 400 refused before admission: headers on both, unchanged.
      const chat = await callJson(`${gateway.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}` },
        body: { model: 'gpt-4.1', messages: [{ role: 'user', content: 'x' }] },
      });
      expect(chat.status).toBe(429);
      expect(envelope(chat.body).error).toMatchObject({
        type: 'rate_limit_error',
        code: 'rate_limit_exceeded',
        message: expect.stringContaining('rate_limit_5h'),
      });
      expect(chat.headers.get('x-ratelimit-reset')).toBe(reset);
      // (A cap above the model's maximum is no longer refused by the gateway: issue 12.)
      const invalid = await messagesCall(secret, { temperature: 2 });
      expect(invalid.status).toBe(400);
      expect(invalid.headers.get('x-ratelimit-limit')).toBe('0.03');
      expect(invalid.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(invalid.headers.get('x-ratelimit-reset')).toBe(reset);
      expect(invalid.headers.get('x-quota-remaining-credits')).toBe(String(QUOTA - spent));
      expectMessagesFamily(invalid.headers);
    });

    it('the headers report the tightest bucket, here the 1 d window', async () => {
      const { secret } = await createKey({
        name: 'tightest',
        group_id: 'default',
        rate_limit_5h: 1,
        rate_limit_1d: 0.04,
        rate_limit_7d: 2,
      });
      const answer = await messagesCall(secret);
      expect(answer.status).toBe(200);
      const cost = Number(answer.headers.get('x-request-cost-credits'));
      expect(answer.headers.get('x-ratelimit-limit')).toBe('0.04');
      expect(answer.headers.get('x-ratelimit-remaining')).toBe(usd(40_000 - cost));
      // The stream answer carries the figures as of admission: still the 1 d window.
      const streamed = await fetch(`${gateway.url}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': secret, ...VERSION },
        body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(streamed.headers.get('x-ratelimit-limit')).toBe('0.04');
      expect(streamed.headers.get('x-ratelimit-remaining')).toBe(usd(40_000 - cost));
      expect(streamed.headers.get('x-quota-remaining-credits')).toMatch(/^\d+$/);
      expectMessagesFamily(streamed.headers);
      await streamed.text();
    });
  });

  describe('the quota race through HTTP', () => {
    let worker: BillingWorker | undefined;
    afterAll(async () => {
      await worker?.close();
    });

    it('200 concurrent Chat calls against a quota for about 50: billed exceeds it by at most one call; refusals are 402', async () => {
      const { db, crypto } = gateway.deps;
      worker = await startBillingWorker(gateway.deps, { concurrency: 25 });
      const accountId = await createAccount(db, { name: 'racer', tier: 'enterprise', concurrencyCap: 1_000 });
      await topUp(db, accountId, 10_000_000, `racer-${accountId}`);
      const defaultGroup = (await db.query<{ id: number }>("SELECT id FROM routing_groups WHERE name = 'default'")).rows[0].id;
      // Output truncated to max_tokens: every call costs the same, and the reservation estimate covers it.
      const body = { model: 'gpt-4.1', max_tokens: 20, messages: [{ role: 'user', content: 'x'.repeat(400) }] };
      const chat = (secret: string) =>
        callJson(`${gateway.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${secret}` }, body });

      const probe = await insertApiKey(db, crypto, { accountId, groupId: defaultGroup, name: 'calibration' });
      const calibration = await chat(probe.secret);
      expect(calibration.status).toBe(200);
      const cost = Number(calibration.headers.get('x-request-cost-credits'));
      expect(cost).toBeGreaterThan(0);

      const quota = 50 * cost;
      const raced = await insertApiKey(db, crypto, { accountId, groupId: defaultGroup, name: 'raced', quotaCredits: quota });
      const answers = await Promise.all(Array.from({ length: 200 }, () => chat(raced.secret)));
      const admitted = answers.filter((answer) => answer.status === 200);
      const refused = answers.filter((answer) => answer.status !== 200);
      expect(admitted.length).toBeGreaterThanOrEqual(25);
      expect(admitted.length).toBeLessThanOrEqual(51);
      for (const answer of admitted) expect(Number(answer.headers.get('x-request-cost-credits'))).toBe(cost);
      for (const answer of refused) {
        expect(answer.status).toBe(402);
        expect(envelope(answer.body).error).toMatchObject({ type: 'insufficient_balance', code: 'insufficient_balance' });
        expect(answer.headers.get('x-quota-remaining-credits')).toMatch(/^\d+$/);
      }

      const rows = await eventually(
        'the usage rows of every admitted call',
        async () =>
          (
            await db.query<{ n: number; credits: string | null }>(
              'SELECT count(*)::int AS n, sum(credits)::text AS credits FROM usage_rows WHERE api_key_id = $1',
              [raced.id],
            )
          ).rows[0],
        (row) => row !== undefined && row.n >= admitted.length,
      );
      expect(rows.n).toBe(admitted.length);
      const billed = Number(rows.credits);
      expect(billed).toBe(admitted.length * cost);
      expect(billed).toBeLessThanOrEqual(quota + cost);
      const spent = (await db.query<{ spent_credits: string }>('SELECT spent_credits::text FROM api_keys WHERE id = $1', [raced.id]))
        .rows[0];
      expect(Number(spent.spent_credits)).toBe(billed);
    });
  });
});
