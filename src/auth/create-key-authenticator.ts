/**
 * Key authentication: HMAC-SHA256 of the secret looked up in PostgreSQL, cached per process for
 * `config.keyCacheTtlMs`, and invalidated on every process at once over Redis pub/sub (payload: the
 * key's secret HMAC, or `*` for everything). Listeners registered with `onInvalidated` (open
 * streams) fire only when the key really stopped being valid, so renaming a key cuts nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
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
/**
 * A recheck that could not read the key (PostgreSQL refusing connections under load, a restart) is
 * tried again after these pauses, about 8 s in all: a revoked key's open streams must not outlive a
 * database blip. Only after the last one are the streams left to the key's next authentication.
 */
const RECHECK_RETRY_DELAYS_MS = [100, 300, 900, 2_700, 4_000];

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

/** The authenticator of one process: its cache, in-flight lookups and open streams' listeners. */
class CachingKeyAuthenticator implements GatewayKeyAuthenticator {
  private readonly channel: string;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly loading = new Map<string, Promise<AuthenticatedKey | undefined>>();
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly lastUsedWrites = new Map<number, number>();
  private readonly pending = new Set<Promise<unknown>>();
  /** Bumped on every invalidation: a lookup that started before one must not refill the cache with stale data. */
  private generation = 0;
  private closed = false;
  /** Ends the pauses between recheck attempts at close. */
  private readonly closing = new AbortController();
  private readonly evaluateIp = createIpRuleEvaluator();
  private readonly subscribed: Promise<void>;

  constructor(private readonly deps: Dependencies) {
    this.channel = deps.redisKeys.keyInvalidationChannel();
    deps.subscriber.on('message', this.onMessage);
    deps.subscriber.on('ready', this.onReady);
    this.subscribed = deps.subscriber.subscribe(this.channel).then(() => undefined);
    // Failure to subscribe is reported by ready(); never an unhandled rejection.
    this.subscribed.catch((error: unknown) => deps.logger.error({ err: error }, 'key invalidation subscription failed'));
  }

  async authenticate(secret: string, clientIp: string): Promise<AuthenticatedKey> {
    const deps = this.deps;
    if (this.closed) throw new GatewayError('internal', 'authenticator closed');
    if (!looksLikeKey(secret)) throw new GatewayError('authentication', 'invalid API key');
    const hmac = deps.crypto.hmac(secret);
    const now = deps.clock.now();
    const entry = this.cache.get(hmac);
    const fresh = entry !== undefined && entry.expiresAt > now;
    // Refresh ahead: in the last fifth of its lifetime a used entry is reloaded in the background, so
    // a busy key's requests never wait on PostgreSQL when it expires (DESIGN 10). It never serves
    // an expired entry; concurrent refreshes share one query.
    if (fresh && entry.expiresAt - now < deps.config.keyCacheTtlMs / 5) this.load(hmac).catch(() => undefined);
    const key = fresh ? entry.key : await this.load(hmac);
    // The index lookup only saw the HMAC; the comparison of what it returned is constant-time.
    if (!key || !deps.crypto.hmacEquals(key.secretHmac, hmac)) throw new GatewayError('authentication', 'invalid API key');
    assertKeyActive(key, now);
    const verdict = this.evaluateIp(key.ipWhitelist, key.ipBlacklist, clientIp);
    if (verdict !== 'allowed') throw new IpRuleRefusal(key, clientIp, verdict);
    this.touchLastUsed(key.keyId);
    return key;
  }

  onInvalidated(secretHmac: string, listener: () => void): () => void {
    let set = this.listeners.get(secretHmac);
    if (!set) {
      set = new Set();
      this.listeners.set(secretHmac, set);
    }
    set.add(listener);
    return () => {
      const current = this.listeners.get(secretHmac);
      if (!current) return;
      current.delete(listener);
      if (current.size === 0) this.listeners.delete(secretHmac);
    };
  }

  async invalidate(secretHmac: string): Promise<void> {
    // The message also comes back to this process, but on the subscriber connection, with no order
    // against the publisher's reply: the change must not wait for it here.
    this.forget(secretHmac);
    await publishKeyInvalidation(this.deps, secretHmac);
  }

  ready(): Promise<void> {
    return this.subscribed;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    this.deps.subscriber.off('message', this.onMessage);
    this.deps.subscriber.off('ready', this.onReady);
    // The subscriber connection belongs to the process (other components may share the channel):
    // it stays subscribed, and its owner closes it.
    this.listeners.clear();
    this.cache.clear();
    await Promise.allSettled([...this.pending]);
  }

  private track(promise: Promise<unknown>): void {
    this.pending.add(promise);
    void promise.finally(() => this.pending.delete(promise));
  }

  private remember(hmac: string, key: AuthenticatedKey | undefined): void {
    if (this.cache.size >= MAX_CACHED_KEYS) {
      const oldest = this.cache.keys().next();
      if (!oldest.done) this.cache.delete(oldest.value);
    }
    this.cache.set(hmac, { key, expiresAt: this.deps.clock.now() + this.deps.config.keyCacheTtlMs });
  }

  private load(hmac: string): Promise<AuthenticatedKey | undefined> {
    const inFlight = this.loading.get(hmac);
    if (inFlight) return inFlight;
    const startedAt = this.generation;
    const promise = loadAuthenticatedKeyByHmac(this.deps.db, hmac, this.deps.clock.now())
      .then((key) => {
        if (this.generation === startedAt) this.remember(hmac, key);
        return key;
      })
      .finally(() => {
        if (this.loading.get(hmac) === promise) this.loading.delete(hmac);
      });
    this.loading.set(hmac, promise);
    return promise;
  }

  private touchLastUsed(keyId: number): void {
    const now = this.deps.clock.now();
    const last = this.lastUsedWrites.get(keyId);
    if (last !== undefined && now - last < LAST_USED_WRITE_INTERVAL_MS) return;
    this.lastUsedWrites.set(keyId, now);
    if (this.lastUsedWrites.size > MAX_CACHED_KEYS) this.lastUsedWrites.clear();
    // Not awaited: the client does not wait for a console hint.
    this.track(
      touchKeyLastUsed(this.deps.db, keyId).catch((error: unknown) => {
        this.deps.logger.warn({ err: error, keyId }, 'could not record key last use');
      }),
    );
  }

  private fire(hmac: string): void {
    const set = this.listeners.get(hmac);
    if (!set) return;
    this.listeners.delete(hmac);
    for (const listener of set) {
      try {
        listener();
      } catch (error) {
        this.deps.logger.error({ err: error }, 'key invalidation listener failed');
      }
    }
  }

  /** A key with listeners was touched somewhere: cut them only if it is no longer usable. */
  private async recheck(hmac: string): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        const key = await loadAuthenticatedKeyByHmac(this.deps.db, hmac, this.deps.clock.now());
        if (!key || inactiveReason(key, this.deps.clock.now()) !== undefined) this.fire(hmac);
        return;
      } catch (error) {
        const pause = RECHECK_RETRY_DELAYS_MS[attempt];
        if (pause === undefined || this.closed) {
          // Unknown state: keep the streams (the next request's authentication decides).
          this.deps.logger.warn({ err: error, attempts: attempt + 1 }, 'could not recheck an invalidated key');
          return;
        }
        this.deps.logger.info({ err: error, attempt: attempt + 1 }, 'recheck of an invalidated key failed; trying again');
        await sleep(pause, undefined, { signal: this.closing.signal }).catch(() => undefined);
        if (!this.listeners.has(hmac)) return;
      }
    }
  }

  /** Drops a key (or with `*` every key) from the cache; a lookup already under way must not refill it. */
  private forget(hmac: string): void {
    this.generation++;
    if (hmac === '*') {
      this.cache.clear();
      this.loading.clear();
      return;
    }
    this.cache.delete(hmac);
    this.loading.delete(hmac);
  }

  private readonly onMessage = (messageChannel: string, message: string): void => {
    if (messageChannel !== this.channel) return;
    this.forget(message);
    for (const hmac of message === '*' ? [...this.listeners.keys()] : [message]) {
      if (this.listeners.has(hmac)) this.track(this.recheck(hmac));
    }
  };

  /**
   * After a reconnect, invalidations sent while we were away are lost: start from an empty cache,
   * make sure of the subscription, and recheck the keys of open streams.
   */
  private readonly onReady = (): void => {
    this.forget('*');
    // ioredis resubscribes on its own, but a subscription lost with a connection that closed before
    // it was confirmed stayed lost (a CI run's second instance was ready and never heard a message):
    // subscribing again is harmless when it is already there.
    this.deps.subscriber
      .subscribe(this.channel)
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'key invalidation resubscription failed'));
    // The keys of open streams may have been deleted or revoked while we were away: look again.
    for (const hmac of this.listeners.keys()) this.track(this.recheck(hmac));
  };
}

export function createKeyAuthenticator(deps: Dependencies): GatewayKeyAuthenticator {
  return new CachingKeyAuthenticator(deps);
}
