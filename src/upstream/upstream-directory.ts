/**
 * Which upstream accounts may serve a request: the key's group → its active accounts that serve the
 * model on one of the wanted protocols, by priority (lower first) then weighted random order within a
 * priority, skipping accounts cooling down after 429/5xx/timeouts. The accounts skipped (cooling
 * down, or disabled by the operator) are returned too, so a refusal can say which case it is.
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
import { registerSecret } from '../errors/scrub-secrets';

/** What may be said about an account outside the process: never its credential or URL. */
export type AccountRef = Pick<UpstreamAccount, 'id' | 'name' | 'protocol'>;

export type SkippedAccount =
  | { account: AccountRef; reason: 'cooling_down'; until: number }
  | { account: AccountRef; reason: 'disabled' };

export interface AccountCooldown { accountId: number; coolingDownUntil: number }

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
  cooldown(accountId: number, milliseconds: number): void;
  /** This process's view: the accounts cooling down now and until when (epoch ms), for the operator's page. */
  cooldowns(): AccountCooldown[];
  /** Drops the cache (after an operator changed accounts). */
  invalidate(): void;
}

interface Row {
  id: number; group_id: number; name: string; protocol: Protocol; base_url: string;
  credential_encrypted: string; models: string[]; priority: number; weight: number; status: 'active' | 'disabled';
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
  db: Pool; crypto: SecretCrypto; clock: Clock; refreshMs?: number; random?: () => number;
}): UpstreamDirectory {
  const refreshMs = options.refreshMs ?? 5_000;
  const random = options.random ?? Math.random;
  const cooldownUntil = new Map<number, number>();
  let cache: { loadedAt: number; directory: Directory } | undefined;
  let loading: Promise<Directory> | undefined;

  async function load(): Promise<Directory> {
    const result = await options.db.query<Row>(
      'SELECT id, group_id, name, protocol, base_url, credential_encrypted, models, priority, weight, status FROM upstream_accounts');
    const byGroup = new Map<number, UpstreamAccount[]>();
    const disabled = new Map<number, Array<AccountRef & { models: string[] }>>();
    for (const row of result.rows) {
      // Every account's secret, disabled ones included, is scrubbed from whatever leaves the process.
      const credential = options.crypto.decrypt(row.credential_encrypted);
      registerSecret(credential);
      if (row.status !== 'active') {
        disabled.set(row.group_id, [...(disabled.get(row.group_id) ?? []), { id: row.id, name: row.name, protocol: row.protocol, models: row.models }]);
        continue;
      }
      const account: UpstreamAccount = {
        id: row.id, groupId: row.group_id, name: row.name, protocol: row.protocol, baseUrl: row.base_url,
        credential, models: row.models, priority: row.priority, weight: row.weight,
      };
      byGroup.set(row.group_id, [...(byGroup.get(row.group_id) ?? []), account]);
    }
    return { active: byGroup, disabled };
  }

  async function directory(): Promise<Directory> {
    const now = options.clock.now();
    if (cache && now - cache.loadedAt < refreshMs) return cache.directory;
    if (cache && loading) return cache.directory; // serve stale while one refresh runs
    loading ??= load().then((loaded) => {
      cache = { loadedAt: options.clock.now(), directory: loaded };
      return loaded;
    }).finally(() => { loading = undefined; });
    if (!cache) return loading;
    // A background refresh that fails (PostgreSQL away) keeps the stale list; unobserved, it would crash the process.
    loading.catch(() => undefined);
    return cache.directory;
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
      const { active, disabled } = await directory();
      const serving = active.get(groupId)?.filter((a) => serves(a, model, protocols)) ?? [];
      const ready = serving.filter((a) => (cooldownUntil.get(a.id) ?? 0) <= now);
      const skipped: SkippedAccount[] = serving.filter((a) => !ready.includes(a)).map((a) => ({
        account: { id: a.id, name: a.name, protocol: a.protocol }, reason: 'cooling_down', until: cooldownUntil.get(a.id) ?? now,
      }));
      for (const account of disabled.get(groupId) ?? []) {
        if (serves(account, model, protocols)) skipped.push({ account: { id: account.id, name: account.name, protocol: account.protocol }, reason: 'disabled' });
      }
      return { accounts: weightedOrder(ready), coolingDown: serving.length - ready.length, skipped };
    },
    async accountsOfGroup(groupId) {
      return (await directory()).active.get(groupId) ?? [];
    },
    cooldown(accountId, milliseconds) {
      cooldownUntil.set(accountId, options.clock.now() + milliseconds);
    },
    cooldowns() {
      const now = options.clock.now();
      return [...cooldownUntil].filter(([, until]) => until > now).map(([accountId, until]) => ({ accountId, coolingDownUntil: until }));
    },
    invalidate() {
      cache = undefined;
    },
  };
}
