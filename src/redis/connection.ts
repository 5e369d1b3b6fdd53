import Redis from 'ioredis';

/** A command on the request path that Redis has not answered by then fails (the caller answers 503). */
export const REQUEST_COMMAND_TIMEOUT_MS = 1_000;

/**
 * A Redis connection that survives a Redis restart: ioredis reconnects with backoff.
 *
 * Request-path connections (the default) fail fast while Redis is away: a command waits for no
 * reconnection attempt (`maxRetriesPerRequest: 0`) and for no more than `REQUEST_COMMAND_TIMEOUT_MS`,
 * so a request is refused with a 503 within a second (a command queued while reconnecting fails at the
 * next failed attempt, at most 500 ms later) instead of after ~4 s of retries
 * (docs/reliability.md). Commands issued before the first connect still wait in the offline queue.
 * A connection that blocks or waits (`waits`: BullMQ's, pub/sub subscribers, the billing stream
 * reader's blocking XREADGROUP) serves no request directly: it gets `maxRetriesPerRequest: null` and
 * no command timeout, since a blocking command outlives any timeout and a SUBSCRIBE that timed out on
 * a busy machine would silently lose key invalidations.
 */
export function createRedis(url: string, options: { waits?: boolean; name?: string } = {}): Redis {
  const patient = options.waits === true;
  const redis = new Redis(url, {
    connectionName: options.name,
    maxRetriesPerRequest: patient ? null : 0,
    commandTimeout: patient ? undefined : REQUEST_COMMAND_TIMEOUT_MS,
    enableReadyCheck: true,
    // Request-path connections retry often (a queued command fails at the next failed attempt).
    retryStrategy: (attempt) => Math.min(attempt * 200, patient ? 2_000 : 500),
    // Only a replica promoted away from us (READONLY) is worth a reconnect. Reconnecting on every error
    // reply turned each NOSCRIPT after a Redis restart into a reconnect that failed the EVAL retrying it.
    reconnectOnError: (error) => error.message.startsWith('READONLY'),
    lazyConnect: false,
  });
  // Errors while disconnected are reported by readiness checks; never crash the process on them.
  redis.on('error', () => undefined);
  if (!patient) coalesceWrites(redis);
  return redis;
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
