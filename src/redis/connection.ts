import Redis from 'ioredis';

/**
 * A Redis connection that survives a Redis restart: ioredis reconnects with backoff and queues
 * commands meanwhile (bounded, so a long outage fails requests instead of piling them up).
 * BullMQ needs `maxRetriesPerRequest: null` on its own connections.
 */
export function createRedis(url: string, options: { forBullmq?: boolean; name?: string } = {}): Redis {
  const redis = new Redis(url, {
    connectionName: options.name,
    maxRetriesPerRequest: options.forBullmq ? null : 2,
    enableReadyCheck: true,
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
    reconnectOnError: () => true,
    lazyConnect: false,
  });
  // Errors while disconnected are reported by readiness checks; never crash the process on them.
  redis.on('error', () => undefined);
  return redis;
}
