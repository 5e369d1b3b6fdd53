/**
 * The one module that builds Redis key names. Every key carries the configured prefix, and keys
 * that one script touches together share a `{hash tag}` so the layout works on Redis Cluster.
 */
export interface RedisKeys {
  readonly prefix: string;
  /** Pub/sub channel: key cache invalidation (payload: secret HMAC or `*`). */
  keyInvalidationChannel(): string;
  /** Pub/sub channel on which billing workers announce the request ids they durably wrote. */
  billingSettledChannel(): string;
  /** Stream of usage events waiting for a billing worker (appended by the settlement script). */
  usageStream(): string;
  /** Stream of usage events a billing worker could never write (for an operator). */
  usageDeadLetters(): string;
  /** Stream of request records waiting for the request-log worker (issue 22). */
  requestLogStream(): string;
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
  /** BullMQ prefix for queues. */
  bullPrefix(): string;
}

export function createRedisKeys(prefix = 'gw'): RedisKeys {
  // The account id is the hash tag: admission touches the account's and its keys' state together.
  return {
    prefix,
    keyInvalidationChannel: () => `${prefix}:chan:key-invalidation`,
    billingSettledChannel: () => `${prefix}:chan:billing-settled`,
    usageStream: () => `${prefix}:billing:usage`,
    usageDeadLetters: () => `${prefix}:billing:dead`,
    requestLogStream: () => `${prefix}:request-log:records`,
    requestLogWrittenChannel: () => `${prefix}:chan:request-log-written`,
    taskChannel: (taskId) => `${prefix}:chan:task:${taskId}`,
    catalogChangedChannel: () => `${prefix}:chan:catalog-changed`,
    upstreamsChangedChannel: () => `${prefix}:chan:upstreams-changed`,
    account: (accountId) => `${prefix}:{a${accountId}}:account`,
    accountLeases: (accountId) => `${prefix}:{a${accountId}}:leases`,
    apiKey: (accountId, keyId) => `${prefix}:{a${accountId}}:key:${keyId}`,
    apiKeySpendWindow: (accountId, keyId) => `${prefix}:{a${accountId}}:spend:${keyId}`,
    apiKeySpendIndex: (accountId, keyId) => `${prefix}:{a${accountId}}:spend-index:${keyId}`,
    accountReservations: (accountId) => `${prefix}:{a${accountId}}:reservations`,
    loginFailures: (email) => `${prefix}:login-failures:${email}`,
    upstreamCooldown: (id) => `${prefix}:upstream:${id}:cooldown`,
    // One hash tag: the failure script touches the cooldowns and the minute's failures together.
    upstreamCooldowns: () => `${prefix}:{upstream}:cooldowns`,
    upstreamFailuresMinute: (minute) => `${prefix}:{upstream}:failures:${minute}`,
    upstreamHealthChannel: () => `${prefix}:chan:upstream-health`,
    idempotency: (keyId, hash) => `${prefix}:idem:${keyId}:${hash}`,
    sessionAffinity: (groupId, sessionHash) => `${prefix}:affinity:${groupId}:${sessionHash}`,
    opaqueId: (id) => `${prefix}:opaque:${id}`,
    bullPrefix: () => `${prefix}:bull`,
  };
}
