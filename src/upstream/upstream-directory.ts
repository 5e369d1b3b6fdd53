/**
 * Which upstream accounts may serve a request: the key's group → its active accounts that serve the
 * model on one of the wanted protocols, by priority (lower first) then weighted random order within a
 * priority, skipping accounts cooling down after 429/5xx/timeouts. The accounts skipped (cooling
 * down, or disabled by the operator) are returned too, so a refusal can say which case it is.
 *
 * Accounts are cached in process so the hot path does no database query. The cache follows the
 * table: a change announced on `upstreamsChangedChannel` (operator API, admin CLI) reloads it at
 * once, a periodic refresh every few seconds covers a missed announcement, and a request that finds
 * no account serving its model waits for a load started after it and looks again, so a stale list
 * never refuses a request (concurrent misses share one load). Cooldowns come from the upstream
 * health (upstream-health.ts): shared by every API process through Redis, read from memory here, so
 * routing does no Redis round trip per request.
 */
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import { listUpstreamAccounts } from '../db/repositories/upstream-accounts';
import type { Clock } from '../dependencies';
import type { Protocol } from '../ir/protocol';
import { upstreamAccountOf, type UpstreamAccount } from './upstream-account';
import { registerSecret } from '../errors/scrub-secrets';
import { createLocalUpstreamHealth, type AccountCooldown, type UpstreamHealth } from './upstream-health';

export type { AccountCooldown } from './upstream-health';

/** What may be said about an account outside the process: never its credential or URL. */
export type AccountRef = Pick<UpstreamAccount, 'id' | 'name' | 'protocol'>;

export type SkippedAccount = { account: AccountRef; reason: 'cooling_down'; until: number } | { account: AccountRef; reason: 'disabled' };

export interface Candidates {
  /** Ordered: try the first, fail over to the next. */
  accounts: UpstreamAccount[];
  /** Accounts that serve the model but are cooling down. */
  coolingDown: number;
  /** Accounts that serve the model but were not offered: cooling down (until when) or disabled. */
  skipped: SkippedAccount[];
}

export interface UpstreamDirectory {
  candidates(groupId: number, model: string, protocols: readonly Protocol[]): Promise<Candidates>;
  /** Every active account of the group (for listings such as available models). */
  accountsOfGroup(groupId: number): Promise<UpstreamAccount[]>;
  /** The account failed: cools it down for every process (`reason`: an HTTP status or an error class). */
  cooldown(accountId: number, milliseconds: number, reason?: string): void;
  /** This process's view (shared ones included): the accounts cooling down now and until when (epoch ms). */
  cooldowns(): AccountCooldown[];
  /** Drops the cache (after an operator changed accounts). */
  invalidate(): void;
  /** Stops following announcements. */
  close(): void;
}

interface Directory {
  active: Map<number, UpstreamAccount[]>;
  /** Disabled accounts by group: only what a refusal may name (their credentials stay encrypted). */
  disabled: Map<number, Array<AccountRef & { models: string[] }>>;
}

function serves(account: { protocol: Protocol; models: string[] }, model: string, protocols: readonly Protocol[]): boolean {
  return protocols.includes(account.protocol) && (account.models.includes(model) || account.models.includes('*'));
}

export function createUpstreamDirectory(options: {
  /** Decrypts the stored credentials (the auth folder's SecretCrypto). */
  db: Pool;
  crypto: { decrypt(ciphertext: string): string };
  clock: Clock;
  refreshMs?: number;
  random?: () => number;
  /** Reload when a change is announced on this channel (the subscriber connection is shared). */
  changes?: { subscriber: Redis; channel: string; onError?: (error: unknown) => void };
  health?: UpstreamHealth;
}): UpstreamDirectory {
  const refreshMs = options.refreshMs ?? 5_000;
  const random = options.random ?? Math.random;
  const health = options.health ?? createLocalUpstreamHealth(options.clock);
  /** Loads are numbered as they start: a cache from load n reflects the table as of n's start or later. */
  let started = 0;
  let cache: { loadedAt: number; seq: number; directory: Directory } | undefined;
  let loading: { seq: number; promise: Promise<Directory> } | undefined;

  async function load(): Promise<Directory> {
    const rows = await listUpstreamAccounts<Protocol>(options.db);
    const byGroup = new Map<number, UpstreamAccount[]>();
    const disabled = new Map<number, Array<AccountRef & { models: string[] }>>();
    for (const row of rows) {
      // Every account's secret, disabled ones included, is scrubbed from whatever leaves the process.
      const credential = options.crypto.decrypt(row.credentialEncrypted);
      registerSecret(credential);
      if (row.status !== 'active') {
        disabled.set(row.groupId, [
          ...(disabled.get(row.groupId) ?? []),
          { id: row.id, name: row.name, protocol: row.protocol, models: row.models },
        ]);
        continue;
      }
      const account = upstreamAccountOf(row, credential);
      byGroup.set(row.groupId, [...(byGroup.get(row.groupId) ?? []), account]);
    }
    return { active: byGroup, disabled };
  }

  function startLoad(): Promise<Directory> {
    const seq = ++started;
    const promise = load()
      .then((loaded) => {
        if (!cache || cache.seq < seq) cache = { loadedAt: options.clock.now(), seq, directory: loaded };
        return loaded;
      })
      .finally(() => {
        if (loading?.seq === seq) loading = undefined;
      });
    loading = { seq, promise };
    return promise;
  }

  /** The table as of now or later: joins a load started after this call, else starts one (after the running one). */
  async function fresh(): Promise<Directory> {
    const after = started;
    for (;;) {
      if (loading && loading.seq > after) return loading.promise;
      if (cache && cache.seq > after) return cache.directory;
      if (!loading) return startLoad();
      await loading.promise.catch(() => undefined);
    }
  }

  function refreshInBackground(): void {
    // A background refresh that fails (PostgreSQL away) keeps the stale list; unobserved, it would crash the process.
    fresh().catch((error: unknown) => options.changes?.onError?.(error));
  }

  async function directory(): Promise<Directory> {
    if (!cache) return fresh();
    if (options.clock.now() - cache.loadedAt >= refreshMs && !loading) refreshInBackground();
    return cache.directory; // serve the cached list while it refreshes; a miss looks again (candidates)
  }

  const onMessage = (channel: string) => {
    if (channel === options.changes?.channel) refreshInBackground();
  };
  if (options.changes) {
    options.changes.subscriber.on('message', onMessage);
    options.changes.subscriber.subscribe(options.changes.channel).catch((error: unknown) => options.changes?.onError?.(error));
  }

  function lookUp(found: Directory, groupId: number, model: string, protocols: readonly Protocol[]) {
    const serving = found.active.get(groupId)?.filter((a) => serves(a, model, protocols)) ?? [];
    return { serving, disabled: found.disabled.get(groupId) ?? [] };
  }

  function weightedOrder(accounts: UpstreamAccount[]): UpstreamAccount[] {
    const byPriority = new Map<number, UpstreamAccount[]>();
    for (const account of accounts) byPriority.set(account.priority, [...(byPriority.get(account.priority) ?? []), account]);
    const ordered: UpstreamAccount[] = [];
    for (const priority of [...byPriority.keys()].sort((a, b) => a - b)) {
      const pool = [...byPriority.get(priority)!];
      while (pool.length > 0) {
        const total = pool.reduce((sum, a) => sum + a.weight, 0);
        let pick = random() * total;
        let index = 0;
        for (; index < pool.length - 1; index++) {
          pick -= pool[index].weight;
          if (pick < 0) break;
        }
        ordered.push(pool.splice(index, 1)[0]);
      }
    }
    return ordered;
  }

  return {
    async candidates(groupId, model, protocols) {
      let found = lookUp(await directory(), groupId, model, protocols);
      // No account serves it in the cached list: the list may predate an account just added or enabled.
      if (found.serving.length === 0) found = lookUp(await fresh(), groupId, model, protocols);
      const now = options.clock.now();
      const { serving } = found;
      const ready = serving.filter((a) => health.until(a.id) <= now);
      const skipped: SkippedAccount[] = serving
        .filter((a) => !ready.includes(a))
        .map((a) => ({
          account: { id: a.id, name: a.name, protocol: a.protocol },
          reason: 'cooling_down',
          until: health.until(a.id),
        }));
      for (const account of found.disabled) {
        if (serves(account, model, protocols))
          skipped.push({ account: { id: account.id, name: account.name, protocol: account.protocol }, reason: 'disabled' });
      }
      return { accounts: weightedOrder(ready), coolingDown: serving.length - ready.length, skipped };
    },
    async accountsOfGroup(groupId) {
      return (await directory()).active.get(groupId) ?? [];
    },
    cooldown(accountId, milliseconds, reason = 'failure') {
      health.failed(accountId, milliseconds, reason);
    },
    cooldowns: () => health.cooldowns(),
    invalidate() {
      cache = undefined;
    },
    close() {
      if (!options.changes) return;
      options.changes.subscriber.off('message', onMessage);
      void options.changes.subscriber.unsubscribe(options.changes.channel).catch(() => undefined);
    },
  };
}
