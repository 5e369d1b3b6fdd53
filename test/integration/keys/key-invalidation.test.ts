/**
 * The key lifecycle across two API instances sharing PostgreSQL and Redis: rotate, delete, disable,
 * revoke take effect at once on both (pub/sub, plus the admission script's secret check); an open
 * stream of a deleted or revoked key is cut with the authentication error frame; expiry → 401.
 */
import { Writable } from 'node:stream';
import type { Pool } from 'pg';
import { createKeyAuthenticator } from '../../../src/auth/create-key-authenticator';
import { createLogger } from '../../../src/http/logger';
import { markKeySecret } from '../../../src/limits/mark-key-secret';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { FakeClock, seedKey, withClock, type SeededKey } from '../admission/admission-fixtures';
import { callJson, secondProcessDependencies, startGatewayInstance, type GatewayInstance } from './gateway-instance';

describe('key changes on two API instances', () => {
  let deps: TestDependencies;
  let second: ReturnType<typeof secondProcessDependencies>;
  let a: GatewayInstance;
  let b: GatewayInstance;
  let owner: SeededKey;
  /** What the second instance saw, named in a failure: its subscriber's events and its log from `info` up. */
  const seenByB: string[] = [];

  beforeAll(async () => {
    deps = await createTestDependencies();
    const log = new Writable({
      write(chunk: Buffer, _encoding, done) {
        seenByB.push(`log ${chunk.toString().trim()}`);
        done();
      },
    });
    second = { ...secondProcessDependencies(deps), logger: createLogger('info', log) };
    second.subscriber.on('message', (channel: string, message: string) => seenByB.push(`message ${channel} ${message.slice(0, 12)}`));
    for (const event of ['ready', 'close', 'reconnecting', 'end']) second.subscriber.on(event, () => seenByB.push(`subscriber ${event}`));
    a = await startGatewayInstance(deps);
    b = await startGatewayInstance(second);
    owner = await seedKey(deps, {});
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await second.closeConnections();
    await deps.close();
  });

  const manage = (path: string, method = 'GET', body?: unknown) =>
    callJson(`${a.url}${path}`, { method, headers: { 'x-api-key': owner.secret }, body });
  const probe = (instance: GatewayInstance, secret: string) =>
    callJson(`${instance.url}/v1/probe?surface=messages`, { method: 'POST', headers: { 'x-api-key': secret }, body: {} });

  async function newKey(name: string): Promise<{ id: number; secret: string }> {
    const created = await manage('/api/v1/keys', 'POST', { name, group_id: 'default' });
    return { id: created.body.id as number, secret: created.body.key as string };
  }

  /** Waits for `promise`, or fails naming the step that did not come and what instance b saw (instead of the test's timeout). */
  async function within<T>(ms: number, step: string, promise: Promise<T>): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new Error(`${step}: not within ${ms} ms; b's subscriber is ${second.subscriber.status}, b saw:\n${seenByB.join('\n')}`)),
        ms,
      );
    });
    try {
      return await Promise.race([promise, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Opens a slow stream on an instance and collects it until the server ends it. */
  async function openStream(
    instance: GatewayInstance,
    secret: string,
  ): Promise<{ firstTick: Promise<void>; text: Promise<string>; status: number }> {
    const response = await fetch(`${instance.url}/v1/stream?ticks=3000&interval=20`, { headers: { 'x-api-key': secret } });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let collected = '';
    let resolveFirst: () => void = () => undefined;
    const firstTick = new Promise<void>((resolve) => {
      resolveFirst = resolve;
    });
    const text = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return collected;
        collected += decoder.decode(value, { stream: true });
        if (collected.includes('"tick"')) resolveFirst();
      }
    })();
    return { firstTick, text, status: response.status };
  }

  it('rotate: the old secret is refused at once on both instances, the new one works on both', async () => {
    const { id, secret } = await newKey('rotate');
    expect((await probe(a, secret)).status).toBe(200);
    expect((await probe(b, secret)).status).toBe(200); // b has the key cached now
    const rotated = await manage(`/api/v1/keys/${id}/rotate`, 'POST');
    const fresh = rotated.body.key as string;
    const [oldOnA, oldOnB] = await Promise.all([probe(a, secret), probe(b, secret)]);
    expect(oldOnA.status).toBe(401);
    expect(oldOnB.status).toBe(401);
    expect(oldOnB.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    expect((await probe(b, fresh)).status).toBe(200);
    expect((await probe(a, fresh)).status).toBe(200);
  });

  it('delete: an open stream on the other instance is cut with the authentication error frame, then 401', async () => {
    const { id, secret } = await newKey('delete');
    const listener = jest.fn();
    b.authenticator.onInvalidated(second.crypto.hmac(secret), listener);
    const stream = await within(8_000, 'stream opened', openStream(b, secret));
    expect(stream.status).toBe(200);
    await within(8_000, 'first tick', stream.firstTick);
    expect((await within(8_000, 'delete answered', manage(`/api/v1/keys/${id}`, 'DELETE'))).status).toBe(200);
    const text = await within(8_000, 'stream cut', stream.text);
    expect(text).toContain('event: error');
    expect(text).toContain('"type":"authentication_error"');
    expect(text).not.toContain('"tick":2999');
    expect(listener).toHaveBeenCalledTimes(1);
    expect((await probe(b, secret)).status).toBe(401);
    expect((await probe(a, secret)).status).toBe(401);
  });

  it('delete while PostgreSQL refuses the recheck at first: the recheck is tried again and the stream is still cut', async () => {
    const { id, secret } = await newKey('recheck refused');
    let refusals = 0;
    // b's pool refuses the next two key lookups as a PostgreSQL out of connections does (53300).
    const refusing = new Proxy(second.db, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
        return (text: unknown, ...rest: unknown[]) => {
          if (refusals > 0 && typeof text === 'string' && text.includes('secret_hmac')) {
            refusals--;
            return Promise.reject(Object.assign(new Error('sorry, too many clients already'), { code: '53300' }));
          }
          return (target.query as (...args: unknown[]) => unknown)(text, ...rest);
        };
      },
    }) as Pool;
    const refused = await startGatewayInstance({ ...second, db: refusing });
    try {
      const stream = await within(8_000, 'stream opened', openStream(refused, secret));
      await within(8_000, 'first tick', stream.firstTick);
      refusals = 2;
      expect((await manage(`/api/v1/keys/${id}`, 'DELETE')).status).toBe(200);
      const text = await within(8_000, 'stream cut after the refused rechecks', stream.text);
      expect(refusals).toBe(0);
      expect(text).toContain('"type":"authentication_error"');
    } finally {
      await refused.close();
    }
  });

  it('a deletion published while the subscriber was away still cuts the stream once it is back', async () => {
    const { id, secret } = await newKey('deleted while away');
    const stream = await within(8_000, 'stream opened', openStream(b, secret));
    await within(8_000, 'first tick', stream.firstTick);
    // b's subscriber loses its connection and stays away until told (no reconnect of its own meanwhile).
    const seenBefore = seenByB.length;
    const ended = new Promise((resolve) => second.subscriber.once('end', resolve));
    second.subscriber.disconnect();
    await within(8_000, "b's subscriber gone", ended);
    expect((await manage(`/api/v1/keys/${id}`, 'DELETE')).status).toBe(200);
    await second.subscriber.connect();
    const text = await within(8_000, 'stream cut after the reconnect', stream.text);
    expect(text).toContain('"type":"authentication_error"');
    // The invalidation itself never reached b: the recheck at the reconnect cut the stream.
    const hmacShown = second.crypto.hmac(secret).slice(0, 12);
    expect(seenByB.slice(seenBefore).filter((line) => line.startsWith('message') && line.endsWith(hmacShown))).toEqual([]);
    // And b hears the next invalidation: subscribed again.
    const other = await newKey('after the reconnect');
    const heard = jest.fn();
    b.authenticator.onInvalidated(second.crypto.hmac(other.secret), heard);
    await manage(`/api/v1/keys/${other.id}`, 'DELETE');
    await within(
      8_000,
      'invalidation heard after the reconnect',
      (async () => {
        while (heard.mock.calls.length === 0) await new Promise((r) => setTimeout(r, 10));
      })(),
    );
  });

  it('the instance that made a change applies it to its next request without waiting for its own pub/sub message', async () => {
    // The message comes back on the subscriber connection, unordered against the change's reply: a
    // CI run's next request on the same instance once met the stale cached key. Here a never hears it.
    const { id, secret } = await newKey('changed here');
    expect((await probe(a, secret)).status).toBe(200); // cached on a
    const ended = new Promise((resolve) => deps.subscriber.once('end', resolve));
    deps.subscriber.disconnect();
    await within(8_000, "a's subscriber gone", ended);
    try {
      expect((await manage(`/api/v1/keys/${id}`, 'PUT', { ip_whitelist: ['10.0.0.0/8'] })).status).toBe(200);
      expect((await probe(a, secret)).status).toBe(403);
      expect((await manage(`/api/v1/keys/${id}`, 'PUT', { ip_whitelist: [], status: 'disabled' })).status).toBe(200);
      expect((await probe(a, secret)).status).toBe(401);
      expect((await manage(`/api/v1/keys/${id}`, 'PUT', { status: 'active' })).status).toBe(200);
      expect((await probe(a, secret)).status).toBe(200);
    } finally {
      const back = new Promise((resolve) => deps.subscriber.once('ready', resolve));
      await deps.subscriber.connect();
      await within(8_000, "a's subscriber back", back);
    }
  });

  it('revoke: an open stream is cut too; a rename does not cut anything', async () => {
    const { id, secret } = await newKey('revoke');
    const renamed = await within(8_000, 'first stream opened', openStream(b, secret));
    await within(8_000, "first stream's first tick", renamed.firstTick);
    await within(8_000, 'rename answered', manage(`/api/v1/keys/${id}`, 'PUT', { name: 'renamed' }));
    const revoked = await within(8_000, 'second stream opened', openStream(b, secret));
    await within(8_000, "second stream's first tick", revoked.firstTick);
    await within(8_000, 'revocation answered', manage(`/api/v1/keys/${id}`, 'PUT', { status: 'revoked' }));
    const [renamedText, revokedText] = await within(8_000, 'both streams cut', Promise.all([renamed.text, revoked.text]));
    // Both streams were open during the rename; both end only at the revocation, with the error frame.
    expect(revokedText).toContain('"type":"authentication_error"');
    expect(renamedText).toContain('"type":"authentication_error"');
    expect((await probe(b, secret)).status).toBe(401);

    const { id: otherId, secret: otherSecret } = await newKey('rename only');
    const stream = await fetch(`${b.url}/v1/stream?ticks=20&interval=20`, { headers: { 'x-api-key': otherSecret } });
    await manage(`/api/v1/keys/${otherId}`, 'PUT', { name: 'still fine' });
    const text = await stream.text();
    expect(text).toContain('"tick":19');
    expect(text).not.toContain('error');
  });

  it('disable: 401 on both instances, and back after re-enabling', async () => {
    const { id, secret } = await newKey('disable');
    expect((await probe(b, secret)).status).toBe(200);
    await manage(`/api/v1/keys/${id}`, 'PUT', { status: 'disabled' });
    expect((await probe(b, secret)).status).toBe(401);
    expect((await probe(a, secret)).status).toBe(401);
    await manage(`/api/v1/keys/${id}`, 'PUT', { status: 'active' });
    expect((await probe(b, secret)).status).toBe(200);
  });

  it('refuses a rotated secret in admission even when an instance missed the pub/sub message', async () => {
    const { id, secret } = await newKey('missed message');
    expect((await probe(b, secret)).status).toBe(200); // cached on b
    // A rotation whose invalidation message never arrived (written straight to the stores, not published).
    const fresh = 'sk-svc-rotatedwithoutpublishing0123456789';
    await deps.db.query('UPDATE api_keys SET secret_hmac = $2 WHERE id = $1', [id, deps.crypto.hmac(fresh)]);
    await markKeySecret(deps, owner.accountId, id, deps.crypto.hmac(fresh));
    const stale = await probe(b, secret);
    expect(stale.status).toBe(401);
  });

  it('repairs a wrongly refused secret from PostgreSQL', async () => {
    const { id, secret } = await newKey('repair');
    await markKeySecret(deps, owner.accountId, id, 'stale-hmac-from-a-lost-update');
    expect((await probe(b, secret)).status).toBe(200);
    expect(await deps.redis.hget(deps.redisKeys.apiKey(owner.accountId, id), 'sh')).toBe(deps.crypto.hmac(secret));
  });

  it('expiry: a key created with expires_in_days is refused once that time has passed, even while cached', async () => {
    const clock = new FakeClock(Date.now());
    // A cache that outlives the expiry: the refusal must come from the cached key's own expiry time.
    const timed = await startGatewayInstance(
      withClock({ ...second, config: { ...second.config, keyCacheTtlMs: 7 * 24 * 3_600_000 } }, clock),
    );
    try {
      const created = await callJson(`${timed.url}/api/v1/keys`, {
        method: 'POST',
        headers: { 'x-api-key': owner.secret },
        body: { name: 'expiring', group_id: 'default', expires_in_days: 1 },
      });
      const secret = created.body.key as string;
      expect((await probe(timed, secret)).status).toBe(200);
      clock.advance(24 * 3_600_000 + 1_000);
      const expired = await probe(timed, secret);
      expect(expired.status).toBe(401);
      expect(expired.body.error?.message).toBe('API key expired');
      const shown = await callJson(`${timed.url}/api/v1/keys/${created.body.id as number}`, { headers: { 'x-api-key': owner.secret } });
      expect(shown.body.status).toBe('expired');
    } finally {
      await timed.close();
    }
  });

  it('fires onInvalidated listeners on every instance for rotate, never unsubscribed ones', async () => {
    const { id, secret } = await newKey('listeners');
    const onA = jest.fn();
    const onB = jest.fn();
    a.authenticator.onInvalidated(deps.crypto.hmac(secret), onA);
    const unsubscribe = b.authenticator.onInvalidated(deps.crypto.hmac(secret), onB);
    unsubscribe();
    const onB2 = jest.fn();
    b.authenticator.onInvalidated(deps.crypto.hmac(secret), onB2);
    await manage(`/api/v1/keys/${id}/rotate`, 'POST');
    for (let i = 0; i < 100 && (onA.mock.calls.length === 0 || onB2.mock.calls.length === 0); i++)
      await new Promise((r) => setTimeout(r, 10));
    expect(onA).toHaveBeenCalledTimes(1);
    expect(onB2).toHaveBeenCalledTimes(1);
    expect(onB).not.toHaveBeenCalled();
  });

  it('refuses malformed, unknown and missing credentials with 401', async () => {
    const attempts: Record<string, string>[] = [
      {},
      { 'x-api-key': 'garbage' },
      { 'x-api-key': 'sk-svc-short' },
      { 'x-api-key': 'sk-svc-unknownunknownunknownunknown' },
    ];
    for (const headers of attempts) {
      const response = await callJson(`${b.url}/v1/probe`, { method: 'POST', headers, body: {} });
      expect(response.status).toBe(401);
      expect(response.body.error).toMatchObject({ type: 'authentication_error', code: 'invalid_api_key' });
    }
    const authenticator = createKeyAuthenticator(second);
    await expect(authenticator.authenticate('sk-svc-unknownunknownunknownunknown', '127.0.0.1')).rejects.toMatchObject({ status: 401 });
    await authenticator.close();
  });
});
