import Redis, { Cluster, type RedisOptions } from 'ioredis';
import type { RedisTarget } from '../config';

/** A command on the request path that Redis has not answered by then fails (the caller answers 503). */
export const REQUEST_COMMAND_TIMEOUT_MS = 1_000;

/**
 * How long admission's script may take before the request is refused 503. During a failover a
 * command is retried (a cluster follows MOVED and CLUSTERDOWN replies for ~600 ms, a Sentinel
 * connection fails it at its next reconnection attempt); measured under load that reached 1.1 s, past
 * the promised second. Well above a healthy script's time even on a loaded machine.
 */
export const REQUEST_REDIS_DEADLINE_MS = 500;

/**
 * `promise`, or a failure ("Command timed out", a Redis failure to `failedDependency`) once `ms`
 * passed; the command itself may still run (what it reserves expires with its lease TTL). The
 * failure waits for the event loop's next poll: when the process was busy past the deadline, a
 * reply that arrived meanwhile is read first and wins (timers run before I/O in a loop turn).
 */
export function withinDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => setImmediate(() => reject(new Error('Command timed out'))), ms);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/**
 * A Redis connection that survives a Redis restart or failover: ioredis reconnects with backoff, and
 * under Sentinel asks the sentinels for the current primary at each attempt; a Cluster refreshes its
 * slot map and follows a promoted replica (docs/operations.md).
 *
 * Request-path connections (the default) fail fast while Redis is away: a command waits for no
 * reconnection attempt (`maxRetriesPerRequest: 0`) and for no more than `REQUEST_COMMAND_TIMEOUT_MS`,
 * so a request is refused with a 503 within a second (a command queued while reconnecting fails at the
 * next failed attempt, at most 500 ms later; on a cluster a command to a lost master is retried for
 * at most ~600 ms) instead of after ~4 s of retries
 * (docs/reliability.md). Commands issued before the first connect still wait in the offline queue.
 * A connection that blocks or waits (`waits`: BullMQ's, pub/sub subscribers) serves no request
 * directly: it gets `maxRetriesPerRequest: null` and no command timeout, since a blocking command
 * outlives any timeout and a SUBSCRIBE that timed out on a busy machine would silently lose key
 * invalidations.
 *
 * The value is typed `Redis` whatever the topology: ioredis's Cluster speaks the same commands
 * (MULTI, pipelines and scripts within one slot, see keys.ts); the members only a single connection
 * has (`stream`, `status` details) are used in this module alone.
 */
export function createRedis(target: RedisTarget | string, options: { waits?: boolean; name?: string } = {}): Redis {
  const resolved: RedisTarget = typeof target === 'string' ? { kind: 'server', url: target } : target;
  const patient = options.waits === true;
  const common = {
    connectionName: options.name,
    maxRetriesPerRequest: patient ? null : 0,
    commandTimeout: patient ? undefined : REQUEST_COMMAND_TIMEOUT_MS,
    enableReadyCheck: true,
    // Only a replica promoted away from us (READONLY) is worth a reconnect. Reconnecting on every error
    // reply turned each NOSCRIPT after a Redis restart into a reconnect that failed the EVAL retrying it.
    reconnectOnError: (error: Error) => error.message.startsWith('READONLY'),
  };
  // Request-path connections retry often (a queued command fails at the next failed attempt).
  const retryStrategy = (attempt: number) => Math.min(attempt * 200, patient ? 2_000 : 500);
  if (resolved.kind === 'cluster') return createCluster(resolved, common, retryStrategy, patient);
  const redis =
    resolved.kind === 'server'
      ? new Redis(resolved.url, { ...common, retryStrategy, lazyConnect: false })
      : new Redis({
          ...common,
          retryStrategy,
          lazyConnect: false,
          sentinels: resolved.sentinels,
          name: resolved.name,
          sentinelPassword: resolved.sentinelPassword,
          username: resolved.username,
          password: resolved.password,
          // The sentinels are asked for the primary again at every reconnection attempt (a killed
          // primary closes the connection; a demoted one answers READONLY, see reconnectOnError). No
          // failoverDetector: its +switch-master arriving while a reconnection was asking a sentinel made
          // ioredis end the connection for good ("Connection is closed." on every later command), which
          // left an API process refusing everything after a failover (test/topologies/redis-sentinel).
          sentinelRetryStrategy: retryStrategy,
          ...(resolved.tls ? { tls: {}, sentinelTLS: {}, enableTLSForSentinelMode: true } : {}),
        });
  // Errors while disconnected are reported by readiness checks; never crash the process on them.
  redis.on('error', () => undefined);
  if (!patient) coalesceWrites(redis);
  return redis;
}

function createCluster(
  target: Extract<RedisTarget, { kind: 'cluster' }>,
  common: RedisOptions,
  retryStrategy: (attempt: number) => number,
  patient: boolean,
): Redis {
  const cluster = new Cluster(target.nodes, {
    redisOptions: { ...common, username: target.username, password: target.password, ...(target.tls ? { tls: {} } : {}) },
    clusterRetryStrategy: retryStrategy,
    // A command to a lost master is retried every 100 ms while its replica takes over; on the request
    // path 6 tries (~600 ms) then it fails (503), waiting connections keep trying.
    retryDelayOnFailover: 100,
    retryDelayOnClusterDown: 100,
    maxRedirections: patient ? 1_000 : 6,
    slotsRefreshTimeout: 1_000,
  });
  cluster.on('error', () => undefined);
  if (!patient) cluster.on('+node', (node: Redis) => coalesceWrites(node));
  return cluster as unknown as Redis;
}

/**
 * Commands sent in one turn of the event loop leave in one write: the socket is corked at the first
 * command and uncorked once the turn's callbacks ran (setImmediate). Under load the many requests a
 * turn serves share one syscall (a write to a loopback socket costs tens of µs) instead of one each;
 * one request alone waits for nothing. Only a connected socket is corked: commands issued while Redis
 * is away take ioredis's offline path as before (fail fast). Unlike ioredis's auto-pipelining, nothing
 * waits for an earlier batch's replies.
 */
function coalesceWrites(redis: Redis): void {
  let corked = false;
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (command, stream) => {
    const socket = redis.stream;
    if (!corked && redis.status === 'ready' && socket?.writable) {
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    return send(command, stream);
  };
}
