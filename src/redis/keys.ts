/**
 * The one module that builds Redis key names. Every key carries the configured prefix, and keys
 * that one script, MULTI or pipeline touches together share a `{hash tag}`, so one layout serves a
 * single server, Sentinel and Cluster alike (docs/operations.md).
 *
 * Accounts are spread over `USAGE_SHARDS` shards. A shard's tag `{s<n>}` is carried by its usage
 * stream, its dead-letter stream and every admission key of its accounts: settlement changes an
 * account's counters and appends its usage event in one atomic script, which on a cluster requires
 * one slot for both. The shard count is fixed (an account's shard must never move while its events
 * wait in a stream); on a cluster it bounds how many masters share the admission load. The request-log
 * stream is sharded the same way: a whole paid answer's record is appended by its settlement.
 */

/** Number of usage-stream shards (and admission-key slots). Changing it moves accounts between shards. */
export const USAGE_SHARDS = 16;

/** The shard of an account: its id modulo USAGE_SHARDS (a non-numeric id is hashed). */
export function usageShard(accountId: number | string): number {
  const text = String(accountId);
  if (/^\d{1,15}$/.test(text)) return Number(text) % USAGE_SHARDS;
  let hash = 0;
  for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % USAGE_SHARDS;
}

/** Items grouped by a key, in first-seen order (a pipeline or MULTI on a cluster must stay in one slot, so Redis work is grouped per stream or shard). */
export function groupBy<T, K>(items: readonly T[], keyOf: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    const group = groups.get(key);
    if (group) group.push(item);
    else groups.set(key, [item]);
  }
  return groups;
}

/** Items grouped by the usage shard of their account. */
export function byUsageShard<T>(items: readonly T[], accountIdOf: (item: T) => number | string): Map<number, T[]> {
  return groupBy(items, (item) => usageShard(accountIdOf(item)));
}

/** Whether two keys carry the same `{hash tag}` (so one script may touch both on a cluster). */
export function sameHashTag(a: string, b: string): boolean {
  const tagOf = (key: string) => {
    const open = key.indexOf('{');
    const close = open < 0 ? -1 : key.indexOf('}', open + 1);
    return close <= open + 1 ? undefined : key.slice(open + 1, close);
  };
  const tag = tagOf(a);
  return tag !== undefined && tag === tagOf(b);
}

/** Every shard number, 0 … USAGE_SHARDS - 1. */
export const ALL_USAGE_SHARDS: readonly number[] = Array.from({ length: USAGE_SHARDS }, (_unused, shard) => shard);

export interface RedisKeys {
  readonly prefix: string;
  /** Pub/sub channel: key cache invalidation (payload: secret HMAC or `*`). */
  keyInvalidationChannel(): string;
  /** Pub/sub channel on which billing workers announce the request ids they durably wrote. */
  billingSettledChannel(): string;
  /** One shard's stream of usage events waiting for a billing worker (appended by the settlement script). */
  usageStream(shard: number): string;
  /** One shard's stream of usage events a billing worker could never write (for an operator). */
  usageDeadLetters(shard: number): string;
  /** The usage stream of the account's shard (the one its settlement appends to). */
  accountUsageStream(accountId: number | string): string;
  /**
   * One shard's stream of request records waiting for the request-log worker. Sharded like the usage
   * stream: a whole paid answer's record rides in its settlement script, whose keys share one slot.
   */
  requestLogStream(shard: number): string;
  /** The request-log stream of the account's shard (the one its records and its settlement append to). */
  accountRequestLogStream(accountId: number | string): string;
  /** The single request-log stream of releases before it was sharded: drained by the worker after an upgrade. */
  legacyRequestLogStream(): string;
  /** Pub/sub channel on which request-log workers announce the request ids they wrote. */
  requestLogWrittenChannel(): string;
  /** Pub/sub channel of one task's state changes. */
  taskChannel(taskId: string): string;
  /** Pub/sub channel: the model catalog changed in PostgreSQL (every process reloads it). */
  catalogChangedChannel(): string;
  /** Pub/sub channel: upstream accounts or routing groups changed in PostgreSQL (every process reloads its list). */
  upstreamsChangedChannel(): string;
  /** Hash of the account's admission state (wallet cache, reservations). */
  account(accountId: number | string): string;
  /** Sorted set of the account's concurrency leases (member: lease id, score: expiry ms). */
  accountLeases(accountId: number | string): string;
  /** Hash of the key's admission state (lifetime spend, reservations). Tagged with its account. */
  apiKey(accountId: number | string, keyId: number | string): string;
  /** Hash of minute buckets of the key's spend (field: minute number, value: credits). */
  apiKeySpendWindow(accountId: number | string, keyId: number | string): string;
  /** Sorted set indexing the minute buckets of `apiKeySpendWindow` (member and score: minute number). */
  apiKeySpendIndex(accountId: number | string, keyId: number | string): string;
  /** Sorted set of the account's open admissions, lease or not (member: request id, score: expiry ms). */
  accountReservations(accountId: number | string): string;
  /** Counter of failed console logins for one email (login throttling). */
  loginFailures(email: string): string;
  /** Upstream account cooldown marker. */
  upstreamCooldown(upstreamAccountId: number | string): string;
  /** Hash of upstream accounts cooling down, shared by every API process (field: account id, value: until, epoch ms). */
  upstreamCooldowns(): string;
  /** Hash of one minute's upstream failures (field: `<account id>:<reason>`, value: count); kept a day. */
  upstreamFailuresMinute(minute: number): string;
  /** Pub/sub channel: an upstream account started cooling down (payload: `<account id>:<until ms>`). */
  upstreamHealthChannel(): string;
  /** The record of one Idempotency-Key of one API key (`hash`: SHA-256 of the header value). */
  idempotency(keyId: number | string, hash: string): string;
  /** The upstream account a conversation sticks to (session affinity for prompt caching). */
  sessionAffinity(groupId: number | string, sessionHash: string): string;
  /** A value the gateway keeps for a short id it gave a client in its place (relay/opaque-id-store). */
  opaqueId(id: string): string;
  /** BullMQ prefix for queues: hash-tagged, so each queue's keys share one cluster slot. */
  bullPrefix(): string;
}

export function createRedisKeys(prefix = 'gw'): RedisKeys {
  // The account's shard is the hash tag: admission touches the account's and its keys' state
  // together, and settlement also its shard's usage stream.
  const account = (accountId: number | string) => `${prefix}:{s${usageShard(accountId)}}:a${accountId}`;
  const usageStream = (shard: number) => `${prefix}:{s${shard}}:billing:usage`;
  const requestLogStream = (shard: number) => `${prefix}:{s${shard}}:request-log:records`;
  return {
    prefix,
    keyInvalidationChannel: () => `${prefix}:chan:key-invalidation`,
    billingSettledChannel: () => `${prefix}:chan:billing-settled`,
    usageStream,
    usageDeadLetters: (shard) => `${prefix}:{s${shard}}:billing:dead`,
    accountUsageStream: (accountId) => usageStream(usageShard(accountId)),
    taskChannel: (taskId) => `${prefix}:chan:task:${taskId}`,
    catalogChangedChannel: () => `${prefix}:chan:catalog-changed`,
    upstreamsChangedChannel: () => `${prefix}:chan:upstreams-changed`,
    requestLogStream,
    accountRequestLogStream: (accountId) => requestLogStream(usageShard(accountId)),
    legacyRequestLogStream: () => `${prefix}:request-log:records`,
    requestLogWrittenChannel: () => `${prefix}:chan:request-log-written`,
    account: (accountId) => `${account(accountId)}:account`,
    accountLeases: (accountId) => `${account(accountId)}:leases`,
    apiKey: (accountId, keyId) => `${account(accountId)}:key:${keyId}`,
    apiKeySpendWindow: (accountId, keyId) => `${account(accountId)}:spend:${keyId}`,
    apiKeySpendIndex: (accountId, keyId) => `${account(accountId)}:spend-index:${keyId}`,
    accountReservations: (accountId) => `${account(accountId)}:reservations`,
    loginFailures: (email) => `${prefix}:login-failures:${email}`,
    upstreamCooldown: (id) => `${prefix}:upstream:${id}:cooldown`,
    // One hash tag: the failure script touches the cooldowns and the minute's failures together.
    upstreamCooldowns: () => `${prefix}:{upstream}:cooldowns`,
    upstreamFailuresMinute: (minute) => `${prefix}:{upstream}:failures:${minute}`,
    upstreamHealthChannel: () => `${prefix}:chan:upstream-health`,
    idempotency: (keyId, hash) => `${prefix}:idem:${keyId}:${hash}`,
    sessionAffinity: (groupId, sessionHash) => `${prefix}:affinity:${groupId}:${sessionHash}`,
    opaqueId: (id) => `${prefix}:opaque:${id}`,
    bullPrefix: () => `${prefix}:{bull}`,
  };
}
