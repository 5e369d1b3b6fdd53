/**
 * Issue 13: every way of leaving an admitted request ends its admission exactly once, at once: the
 * concurrency lease and the reservation are back as soon as the request is over, and the money
 * follows docs/billing.md (a delivered answer or an abandoned stream is billed, anything else is free).
 */
import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { UsageRecorderHandle } from '../../src/billing/create-usage-recorder';
import { addUpstreamAccount, createAccount, createGroup, topUp } from '../../src/process/seed';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { loadWalletCache } from '../../src/limits/rebuild-counters';
import { startTestGateway, type TestGateway } from '../support/gateway';

jest.setTimeout(60_000);

const CHAT_BODY = { model: 'gpt-4.1', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Standing {
  leases: number;
  reservations: number;
  reserved: number;
  wallet: number;
  recorded: number;
}

describe('one owner of the admission ticket', () => {
  let gateway: TestGateway;
  /** An upstream that sends its headers at once and its Chat body after 400 ms. */
  let slowBody: Server;
  let slowBodyUrl: string;

  beforeAll(async () => {
    gateway = await startTestGateway({ env: { UPSTREAM_COOLDOWN_MS: '1' } });
    slowBody = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      const timer = setTimeout(
        () =>
          res.end(
            JSON.stringify({
              id: 'chatcmpl-1',
              object: 'chat.completion',
              created: 1,
              model: 'gpt-4.1',
              choices: [{ index: 0, message: { role: 'assistant', content: 'late' }, finish_reason: 'stop' }],
              usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 },
            }),
          ),
        400,
      );
      res.on('close', () => clearTimeout(timer));
    });
    slowBody.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => slowBody.once('listening', () => resolve()));
    slowBodyUrl = `http://127.0.0.1:${(slowBody.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    slowBody.closeAllConnections();
    await new Promise<void>((resolve) => slowBody.close(() => resolve()));
    await gateway.close();
  });

  /** A fresh account (100 USD) with a key in a group of one upstream account: its counters are this test's alone. */
  async function keyFor(
    name: string,
    baseUrl: string,
    protocol: 'chat' | 'messages' = 'chat',
  ): Promise<{ secret: string; keyId: number; accountId: number }> {
    const accountId = await createAccount(gateway.deps.db, { name, tier: 'pro', concurrencyCap: 50 });
    await topUp(gateway.deps.db, accountId, 100_000_000);
    const groupId = await createGroup(gateway.deps.db, { name, family: null });
    await addUpstreamAccount(gateway.deps.db, gateway.deps.crypto, {
      groupId,
      name,
      protocol,
      baseUrl,
      apiKey: 'sim-key',
      models: protocol === 'chat' ? ['gpt-4.1'] : ['claude-sonnet-4-5'],
      priority: 0,
    });
    gateway.services.upstreams.invalidate();
    const inserted = await insertApiKey(gateway.deps.db, gateway.deps.crypto, { accountId, groupId, name });
    // The wallet cache is loaded now, so a test sees any charge as a drop from 100 USD.
    await loadWalletCache(gateway.deps, accountId, 'if-missing');
    return { secret: inserted.secret, keyId: inserted.id, accountId };
  }

  async function standing(accountId: number): Promise<Standing> {
    const { redis, redisKeys } = gateway.deps;
    const [leases, reservations, fields] = await Promise.all([
      redis.zcard(redisKeys.accountLeases(accountId)),
      redis.zcard(redisKeys.accountReservations(accountId)),
      redis.hmget(redisKeys.account(accountId), 'reserved', 'wallet'),
    ]);
    return {
      leases,
      reservations,
      reserved: Number(fields[0] ?? 0),
      wallet: Number(fields[1] ?? 0),
      recorded: (gateway.services.usage as UsageRecorderHandle).stats().pending,
    };
  }

  /** Waits (up to 1 s) until nothing is held; returns the standing then. */
  async function settledWithinOneSecond(accountId: number): Promise<Standing> {
    const deadline = Date.now() + 1_000;
    let now = await standing(accountId);
    while ((now.leases > 0 || now.reservations > 0 || now.reserved > 0) && Date.now() < deadline) {
      await sleep(20);
      now = await standing(accountId);
    }
    return now;
  }

  function expectFree(after: Standing, before: Standing): void {
    expect({ leases: after.leases, reservations: after.reservations, reserved: after.reserved }).toEqual({
      leases: 0,
      reservations: 0,
      reserved: 0,
    });
    expect(after.wallet).toBe(before.wallet);
    expect(after.recorded).toBe(before.recorded);
  }

  function expectBilled(after: Standing, before: Standing): void {
    expect({ leases: after.leases, reservations: after.reservations, reserved: after.reserved }).toEqual({
      leases: 0,
      reservations: 0,
      reserved: 0,
    });
    expect(after.wallet).toBeLessThan(before.wallet);
    expect(after.recorded).toBe(before.recorded + 1);
  }

  function postChat(secret: string): Promise<Response> {
    return fetch(`${gateway.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify(CHAT_BODY),
    });
  }

  /** Sends a raw request and destroys the socket after `afterMs` (or after `afterBytes` of the answer). */
  function postAndLeave(path: string, secret: string, body: unknown, leave: { afterMs?: number; afterBytes?: number }): Promise<void> {
    const url = new URL(gateway.url + path);
    return new Promise((resolve) => {
      const req = http.request({
        host: url.hostname,
        port: url.port,
        path,
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      });
      req.on('error', () => resolve());
      req.on('close', () => resolve());
      if (leave.afterMs !== undefined) setTimeout(() => req.destroy(), leave.afterMs);
      req.on('response', (res) => {
        let seen = 0;
        res.on('data', (chunk: Buffer) => {
          seen += chunk.length;
          if (leave.afterBytes !== undefined && seen >= leave.afterBytes) req.destroy();
        });
        res.on('error', () => resolve());
      });
      req.end(JSON.stringify(body));
    });
  }

  it('client gone before the upstream headers (non-streamed, ten times): every lease and reservation back, nothing billed', async () => {
    const { secret, accountId } = await keyFor('gone-before-headers', `${gateway.sim.url}/_latency/500/0`);
    const before = await standing(accountId);
    await Promise.all(Array.from({ length: 10 }, () => postAndLeave('/v1/chat/completions', secret, CHAT_BODY, { afterMs: 150 })));
    expectFree(await settledWithinOneSecond(accountId), before);
  });

  it('client gone while admission is still running: no upstream call at all, everything back, nothing billed', async () => {
    const { secret, accountId } = await keyFor('gone-during-admission', `${gateway.sim.url}/_latency/500/0`);
    const admission = gateway.services.admission;
    const admit = admission.admit;
    let clientLeft: () => void = () => undefined;
    const left = new Promise<void>((resolve) => {
      clientLeft = resolve;
    });
    // Admission answers only once the client is gone (a loaded machine's slow admission, made certain).
    admission.admit = async (request) => {
      await left;
      return admit(request);
    };
    try {
      const before = await standing(accountId);
      const upstreamBefore = gateway.sim.requests.length;
      await postAndLeave('/v1/chat/completions', secret, CHAT_BODY, { afterMs: 100 });
      clientLeft();
      expectFree(await settledWithinOneSecond(accountId), before);
      await sleep(600); // past the upstream's latency: a call made anyway would have been recorded by now
      expect(gateway.sim.requests.length).toBe(upstreamBefore);
    } finally {
      admission.admit = admit;
    }
  });

  it('client gone before the upstream headers (streamed): back at once, nothing billed', async () => {
    const { secret, accountId } = await keyFor('gone-before-headers-stream', `${gateway.sim.url}/_latency/500/0`);
    const before = await standing(accountId);
    await postAndLeave('/v1/chat/completions', secret, { ...CHAT_BODY, stream: true }, { afterMs: 150 });
    expectFree(await settledWithinOneSecond(accountId), before);
  });

  it('client gone while the whole upstream body is awaited: back at once, nothing billed', async () => {
    const { secret, accountId } = await keyFor('gone-during-body', slowBodyUrl);
    const before = await standing(accountId);
    await postAndLeave('/v1/chat/completions', secret, CHAT_BODY, { afterMs: 150 });
    expectFree(await settledWithinOneSecond(accountId), before);
  });

  it('client gone mid-stream: back at once, the usage until the abort is billed', async () => {
    const { secret, accountId } = await keyFor('gone-mid-stream', `${gateway.sim.url}/_latency/0/50`);
    const before = await standing(accountId);
    await postAndLeave(
      '/v1/chat/completions',
      secret,
      { ...CHAT_BODY, max_tokens: 2000, stream: true, messages: [{ role: 'user', content: 'repeat:100:slow words ' }] },
      { afterBytes: 1 },
    );
    expectBilled(await settledWithinOneSecond(accountId), before);
  });

  it('key deleted while the upstream is silent: 401, back at once, nothing billed', async () => {
    const { secret, keyId, accountId } = await keyFor('key-deleted', `${gateway.sim.url}/_latency/600/0`);
    const before = await standing(accountId);
    const pending = postChat(secret);
    await sleep(150);
    const deleted = await fetch(`${gateway.url}/api/v1/keys/${keyId}`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(deleted.status).toBe(200);
    const response = await pending;
    expect(response.status).toBe(401);
    await response.text();
    expectFree(await settledWithinOneSecond(accountId), before);
  });

  it('upstream failure: 5xx, back at once, nothing billed', async () => {
    const { secret, accountId } = await keyFor('upstream-fails', `${gateway.sim.url}/_fault/500`);
    const before = await standing(accountId);
    const response = await postChat(secret);
    expect(response.status).toBeGreaterThanOrEqual(500);
    await response.text();
    expectFree(await settledWithinOneSecond(accountId), before);
  });

  it('an error thrown after admission (unknown previous_response_id): 4xx, back at once, nothing billed', async () => {
    const { secret, accountId } = await keyFor('thrown', gateway.sim.url);
    const before = await standing(accountId);
    const response = await fetch(`${gateway.url}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${secret}` },
      body: JSON.stringify({ model: 'gpt-4.1', input: 'Hello', previous_response_id: 'resp_doesnotexist' }),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    await response.text();
    expectFree(await settledWithinOneSecond(accountId), before);
  });

  it('a whole answer delivered: billed once, back at once', async () => {
    const { secret, accountId } = await keyFor('delivered', gateway.sim.url);
    const before = await standing(accountId);
    const response = await postChat(secret);
    expect(response.status).toBe(200);
    await response.text();
    expectBilled(await settledWithinOneSecond(accountId), before);
  });

  it('load with clients leaving at every moment: every lease free within 1 s of the end', async () => {
    const { secret, accountId } = await keyFor('load', `${gateway.sim.url}/_latency/40/5`);
    const bodies = [CHAT_BODY, { ...CHAT_BODY, stream: true, messages: [{ role: 'user', content: 'repeat:20:words ' }] }];
    let next = 0;
    const lane = async () => {
      while (next < 200) {
        const index = next++;
        const body = bodies[index % 2];
        const leave = index % 3 === 0 ? {} : index % 3 === 1 ? { afterMs: index % 60 } : { afterBytes: 1 };
        await postAndLeave('/v1/chat/completions', secret, body, leave);
      }
    };
    await Promise.all(Array.from({ length: 20 }, lane));
    const after = await settledWithinOneSecond(accountId);
    expect({ leases: after.leases, reservations: after.reservations, reserved: after.reserved }).toEqual({
      leases: 0,
      reservations: 0,
      reserved: 0,
    });
  });
});
