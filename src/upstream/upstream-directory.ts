/**
 * Which upstream accounts may serve a request: the key's group → its active accounts that serve the
 * model on one of the wanted protocols, by priority (lower first) then weighted random order within a
 * priority, skipping accounts cooling down after 429/5xx/timeouts.
 *
 * Accounts are cached in process (refreshed every few seconds) so the hot path does no database
 * query. Cooldowns are per process: each API process learns an account's failures by itself, which
 * costs at most one failed attempt per process and needs no Redis round trip per request.
 */
import type { Pool } from 'pg';
import type { SecretCrypto } from '../auth/secret-crypto';
import type { Clock } from '../dependencies';
import type { Protocol } from '../ir/protocol';
import type { UpstreamAccount } from './upstream-account';

export interface Candidates {
  /** Ordered: try the first, fail over to the next. */
  accounts: UpstreamAccount[];
  /** Accounts that serve the model but are cooling down. */
  coolingDown: number;
}

export interface UpstreamDirectory {
  candidates(groupId: number, model: string, protocols: readonly Protocol[]): Promise<Candidates>;
  /** Every active account of the group (for listings such as available models). */
  accountsOfGroup(groupId: number): Promise<UpstreamAccount[]>;
  cooldown(accountId: number, milliseconds: number): void;
  /** Drops the cache (after an operator changed accounts). */
  invalidate(): void;
}

interface Row {
  id: number; group_id: number; name: string; protocol: Protocol; base_url: string;
  credential_encrypted: string; models: string[]; priority: number; weight: number;
}

export function createUpstreamDirectory(options: {
  db: Pool; crypto: SecretCrypto; clock: Clock; refreshMs?: number; random?: () => number;
}): UpstreamDirectory {
  const refreshMs = options.refreshMs ?? 5_000;
  const random = options.random ?? Math.random;
  const cooldownUntil = new Map<number, number>();
  let cache: { loadedAt: number; byGroup: Map<number, UpstreamAccount[]> } | undefined;
  let loading: Promise<Map<number, UpstreamAccount[]>> | undefined;

  async function load(): Promise<Map<number, UpstreamAccount[]>> {
    const result = await options.db.query<Row>(
      "SELECT id, group_id, name, protocol, base_url, credential_encrypted, models, priority, weight FROM upstream_accounts WHERE status = 'active'");
    const byGroup = new Map<number, UpstreamAccount[]>();
    for (const row of result.rows) {
      const account: UpstreamAccount = {
        id: row.id, groupId: row.group_id, name: row.name, protocol: row.protocol, baseUrl: row.base_url,
        credential: options.crypto.decrypt(row.credential_encrypted), models: row.models, priority: row.priority, weight: row.weight,
      };
      byGroup.set(row.group_id, [...(byGroup.get(row.group_id) ?? []), account]);
    }
    return byGroup;
  }

  async function groups(): Promise<Map<number, UpstreamAccount[]>> {
    const now = options.clock.now();
    if (cache && now - cache.loadedAt < refreshMs) return cache.byGroup;
    if (cache && loading) return cache.byGroup; // serve stale while one refresh runs
    loading ??= load().then((byGroup) => {
      cache = { loadedAt: options.clock.now(), byGroup };
      return byGroup;
    }).finally(() => { loading = undefined; });
    if (!cache) return loading;
    // A background refresh that fails (PostgreSQL away) keeps the stale list; unobserved, it would crash the process.
    loading.catch(() => undefined);
    return cache.byGroup;
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
      const now = options.clock.now();
      const serving = (await groups()).get(groupId)?.filter((a) =>
        protocols.includes(a.protocol) && (a.models.includes(model) || a.models.includes('*'))) ?? [];
      const ready = serving.filter((a) => (cooldownUntil.get(a.id) ?? 0) <= now);
      return { accounts: weightedOrder(ready), coolingDown: serving.length - ready.length };
    },
    async accountsOfGroup(groupId) {
      return (await groups()).get(groupId) ?? [];
    },
    cooldown(accountId, milliseconds) {
      cooldownUntil.set(accountId, options.clock.now() + milliseconds);
    },
    invalidate() {
      cache = undefined;
    },
  };
}
