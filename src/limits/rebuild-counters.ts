/**
 * Redis counters rebuilt from PostgreSQL, the source of truth: the wallet cache from
 * `accounts.balance_credits`, a key's lifetime spend from `api_keys.spent_credits` and its spend
 * windows from the last 7 days of `usage_rows` (bucketed by the minute the request started).
 * Admission loads missing counters on first use (`if-missing`); the billing reconciler and operators
 * rebuild a whole account (`replace`). Open reservations and leases are kept: they belong to
 * requests in flight. Charges settled in Redis but not yet written by the billing worker are not
 * in PostgreSQL, so a `replace` rebuild forgets them until the worker writes them.
 */
import { findAccount } from '../db/repositories/accounts';
import { findKeySpendState, listKeyIdsOfAccount } from '../db/repositories/api-keys';
import { keySpendPerMinute } from '../db/repositories/usage-rows';
import type { Dependencies } from '../dependencies';
import { loadRedisScript, runRedisScript, type RedisScript } from '../redis/redis-script';
import { COUNTER_IDLE_TTL_MS } from './spend-windows';

export type LoadMode = 'if-missing' | 'replace';

type CounterDependencies = Pick<Dependencies, 'db' | 'redis' | 'redisKeys' | 'clock'>;

/** Loaded once per caller (a file read); pass it around rather than re-reading on every call. */
export function loadKeyCountersScript(): RedisScript {
  return loadRedisScript('load-key-counters-3');
}

export async function loadWalletCache(deps: CounterDependencies, accountId: number, mode: LoadMode): Promise<void> {
  // A vanished account has nothing to spend.
  const balance = (await findAccount(deps.db, accountId))?.balanceCredits ?? 0;
  const key = deps.redisKeys.account(accountId);
  const transaction = deps.redis.multi();
  if (mode === 'replace') transaction.hset(key, 'wallet', balance);
  else transaction.hsetnx(key, 'wallet', balance);
  transaction.pexpire(key, COUNTER_IDLE_TTL_MS);
  await transaction.exec();
}

export async function loadKeyCounters(
  deps: CounterDependencies,
  script: RedisScript,
  accountId: number,
  keyId: number,
  mode: LoadMode,
): Promise<void> {
  const now = deps.clock.now();
  const row = await findKeySpendState(deps.db, accountId, keyId);
  const buckets = await keySpendPerMinute(deps.db, accountId, keyId, now);
  const pairs = buckets.flatMap((bucket) => [bucket.minute, bucket.credits]);
  // Expiry is checked in TypeScript on every request; only a status change makes the secret unusable here.
  const allowedHmac = row && row.status === 'active' ? row.secretHmac : '-';
  await runRedisScript(
    deps.redis,
    script,
    [
      deps.redisKeys.apiKey(accountId, keyId),
      deps.redisKeys.apiKeySpendWindow(accountId, keyId),
      deps.redisKeys.apiKeySpendIndex(accountId, keyId),
    ],
    [mode, now, row?.spentCredits ?? 0, allowedHmac, COUNTER_IDLE_TTL_MS, ...pairs],
  );
}

/** Rebuilds every Redis counter of the account and of each of its keys from PostgreSQL. */
export async function rebuildAccountCounters(deps: CounterDependencies, accountId: number): Promise<void> {
  const script = loadKeyCountersScript();
  await loadWalletCache(deps, accountId, 'replace');
  for (const keyId of await listKeyIdsOfAccount(deps.db, accountId)) await loadKeyCounters(deps, script, accountId, keyId, 'replace');
}
