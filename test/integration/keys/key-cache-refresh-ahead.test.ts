/**
 * The key cache refreshes a used entry in the background during the last fifth of its lifetime, so
 * a busy key's requests never wait on PostgreSQL at expiry (DESIGN 10), and it never serves an
 * expired entry.
 */
import type { Pool } from 'pg';
import { createKeyAuthenticator } from '../../../src/auth/create-key-authenticator';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { FakeClock, seedKey, withClock } from '../admission/admission-fixtures';

const TTL_MS = 10_000;

describe('key cache refresh-ahead', () => {
  let deps: TestDependencies;
  beforeAll(async () => {
    deps = await createTestDependencies({ env: { KEY_CACHE_TTL_MS: String(TTL_MS) } });
  });
  afterAll(async () => {
    await deps.close();
  });

  /** The authenticator over a pool that counts the key lookups it runs. */
  function countingAuthenticator(clock: FakeClock) {
    let lookups = 0;
    const db = new Proxy(deps.db, {
      get(target, property, receiver) {
        if (property !== 'query') return Reflect.get(target, property, receiver) as unknown;
        return (text: unknown, ...rest: unknown[]) => {
          if (typeof text === 'string' && text.includes('secret_hmac = $1')) lookups++;
          return (target.query as (...args: unknown[]) => unknown)(text, ...rest);
        };
      },
    }) as Pool;
    const authenticator = createKeyAuthenticator({ ...withClock(deps, clock), db });
    return { authenticator, lookups: () => lookups };
  }

  it('reloads a used entry before it expires, without making the request wait', async () => {
    const clock = new FakeClock(Date.now());
    const { secret } = await seedKey(deps, {});
    const { authenticator, lookups } = countingAuthenticator(clock);
    await authenticator.ready();
    try {
      await authenticator.authenticate(secret, '127.0.0.1');
      expect(lookups()).toBe(1);
      clock.advance(TTL_MS * 0.5);
      await authenticator.authenticate(secret, '127.0.0.1');
      expect(lookups()).toBe(1); // fresh: no reload
      clock.advance(TTL_MS * 0.4); // 90% of the lifetime: served from the cache, reloaded behind it
      await authenticator.authenticate(secret, '127.0.0.1');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(lookups()).toBe(2);
      clock.advance(TTL_MS * 0.3); // past the first entry's expiry, inside the reloaded one's
      await authenticator.authenticate(secret, '127.0.0.1');
      expect(lookups()).toBe(2);
    } finally {
      await authenticator.close();
    }
  });

  it('still waits for a reload once an entry has expired unused', async () => {
    const clock = new FakeClock(Date.now());
    const { secret } = await seedKey(deps, {});
    const { authenticator, lookups } = countingAuthenticator(clock);
    await authenticator.ready();
    try {
      await authenticator.authenticate(secret, '127.0.0.1');
      clock.advance(TTL_MS + 1);
      await authenticator.authenticate(secret, '127.0.0.1');
      expect(lookups()).toBe(2);
    } finally {
      await authenticator.close();
    }
  });
});
