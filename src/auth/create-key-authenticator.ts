/**
 * Key authentication: HMAC-SHA256 of the secret looked up in PostgreSQL, cached per process for
 * `config.keyCacheTtlMs`, and invalidated on every process at once over Redis pub/sub (payload: the
 * key's secret HMAC, or `*` for everything). Listeners registered with `onInvalidated` (open
 * streams) fire only when the key really stopped being valid, so renaming a key cuts nothing.
 */
import type { Dependencies } from '../dependencies';
import { touchKeyLastUsed } from '../db/repositories/api-keys';
import { GatewayError } from '../errors/gateway-error';
import { looksLikeKey } from './key-secret';
import { assertKeyActive, inactiveReason } from './assert-key-active';
import type { AuthenticatedKey } from './authenticated-key';
import { IpRuleRefusal } from './ip-refusal';
import { createIpRuleEvaluator } from './ip-rules';
import type { KeyAuthenticator } from './key-authenticator';
import { loadAuthenticatedKeyByHmac } from './load-authenticated-key';

/** Bounds memory under a flood of random secrets (negative entries are cached too). */
const MAX_CACHED_KEYS = 50_000;
/** `last_used_at` is a hint for the console, not an audit trail: written at most once a minute per key. */
const LAST_USED_WRITE_INTERVAL_MS = 60_000;

export interface GatewayKeyAuthenticator extends KeyAuthenticator {
  /** Resolves once the invalidation subscription is active (tests, readiness probes). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

interface CacheEntry {
  key: AuthenticatedKey | undefined;
  expiresAt: number;
}

export async function publishKeyInvalidation(deps: Pick<Dependencies, 'redis' | 'redisKeys'>, secretHmac: string): Promise<void> {
  await deps.redis.publish(deps.redisKeys.keyInvalidationChannel(), secretHmac);
}

export function createKeyAuthenticator(deps: Dependencies): GatewayKeyAuthenticator {
  const channel = deps.redisKeys.keyInvalidationChannel();
  const cache = new Map<string, CacheEntry>();
  const loading = new Map<string, Promise<AuthenticatedKey | undefined>>();
  const listeners = new Map<string, Set<() => void>>();
  const lastUsedWrites = new Map<number, number>();
  const pending = new Set<Promise<unknown>>();
  // Bumped on every invalidation: a lookup that started before one must not refill the cache with stale data.
  let generation = 0;
  let closed = false;
  const evaluateIp = createIpRuleEvaluator();

  function track(promise: Promise<unknown>): void {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise));
  }

  function remember(hmac: string, key: AuthenticatedKey | undefined): void {
    if (cache.size >= MAX_CACHED_KEYS) {
      const oldest = cache.keys().next();
      if (!oldest.done) cache.delete(oldest.value);
    }
    cache.set(hmac, { key, expiresAt: deps.clock.now() + deps.config.keyCacheTtlMs });
  }

  function load(hmac: string): Promise<AuthenticatedKey | undefined> {
    const inFlight = loading.get(hmac);
    if (inFlight) return inFlight;
    const startedAt = generation;
    const promise = loadAuthenticatedKeyByHmac(deps.db, hmac, deps.clock.now()).then((key) => {
      if (generation === startedAt) remember(hmac, key);
      return key;
    }).finally(() => {
      if (loading.get(hmac) === promise) loading.delete(hmac);
    });
    loading.set(hmac, promise);
    return promise;
  }

  function touchLastUsed(keyId: number): void {
    const now = deps.clock.now();
    const last = lastUsedWrites.get(keyId);
    if (last !== undefined && now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    lastUsedWrites.set(keyId, now);
    if (lastUsedWrites.size > MAX_CACHED_KEYS) lastUsedWrites.clear();
    // Not awaited: the client does not wait for a console hint.
    track(touchKeyLastUsed(deps.db, keyId).catch((error: unknown) => {
      deps.logger.warn({ err: error, keyId }, 'could not record key last use');
    }));
  }

  function fire(hmac: string): void {
    const set = listeners.get(hmac);
    if (!set) return;
    listeners.delete(hmac);
    for (const listener of set) {
      try {
        listener();
      } catch (error) {
        deps.logger.error({ err: error }, 'key invalidation listener failed');
      }
    }
  }

  /** A key with listeners was touched somewhere: cut them only if it is no longer usable. */
  async function recheck(hmac: string): Promise<void> {
    try {
      const key = await loadAuthenticatedKeyByHmac(deps.db, hmac, deps.clock.now());
      if (!key || inactiveReason(key, deps.clock.now()) !== undefined) fire(hmac);
    } catch (error) {
      // Unknown state: keep the streams (the next request's authentication decides).
      deps.logger.warn({ err: error }, 'could not recheck an invalidated key');
    }
  }

  function onMessage(messageChannel: string, message: string): void {
    if (messageChannel !== channel) return;
    generation++;
    if (message === '*') {
      cache.clear();
      loading.clear();
      for (const hmac of listeners.keys()) track(recheck(hmac));
      return;
    }
    cache.delete(message);
    loading.delete(message);
    if (listeners.has(message)) track(recheck(message));
  }

  // After a reconnect, invalidations sent while we were away are lost: start from an empty cache.
  function onReady(): void {
    generation++;
    cache.clear();
  }

  deps.subscriber.on('message', onMessage);
  deps.subscriber.on('ready', onReady);
  const subscribed = deps.subscriber.subscribe(channel).then(() => undefined);
  // Failure to subscribe is reported by ready(); never an unhandled rejection.
  subscribed.catch((error: unknown) => deps.logger.error({ err: error }, 'key invalidation subscription failed'));

  return {
    async authenticate(secret, clientIp) {
      if (closed) throw new GatewayError('internal', 'authenticator closed');
      if (!looksLikeKey(secret)) throw new GatewayError('authentication', 'invalid API key');
      const hmac = deps.crypto.hmac(secret);
      const now = deps.clock.now();
      const entry = cache.get(hmac);
      const fresh = entry !== undefined && entry.expiresAt > now;
      // Refresh ahead: in the last fifth of its lifetime a used entry is reloaded in the background, so
      // a busy key's requests never wait on PostgreSQL when it expires (DESIGN 10). It never serves
      // an expired entry; concurrent refreshes share one query.
      if (fresh && entry.expiresAt - now < deps.config.keyCacheTtlMs / 5) load(hmac).catch(() => undefined);
      const key = fresh ? entry.key : await load(hmac);
      // The index lookup only saw the HMAC; the comparison of what it returned is constant-time.
      if (!key || !deps.crypto.hmacEquals(key.secretHmac, hmac)) throw new GatewayError('authentication', 'invalid API key');
      assertKeyActive(key, now);
      const verdict = evaluateIp(key.ipWhitelist, key.ipBlacklist, clientIp);
      if (verdict !== 'allowed') throw new IpRuleRefusal(key, clientIp, verdict);
      touchLastUsed(key.keyId);
      return key;
    },
    onInvalidated(secretHmac, listener) {
      let set = listeners.get(secretHmac);
      if (!set) { set = new Set(); listeners.set(secretHmac, set); }
      set.add(listener);
      return () => {
        const current = listeners.get(secretHmac);
        if (!current) return;
        current.delete(listener);
        if (current.size === 0) listeners.delete(secretHmac);
      };
    },
    ready: () => subscribed,
    async close() {
      closed = true;
      deps.subscriber.off('message', onMessage);
      deps.subscriber.off('ready', onReady);
      // The subscriber connection belongs to the process (other components may share the channel):
      // it stays subscribed, and its owner closes it.
      listeners.clear();
      cache.clear();
      await Promise.allSettled([...pending]);
    },
  };
}
