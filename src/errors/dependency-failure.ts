/**
 * Recognises a failure of a dependency of the gateway itself (Redis, PostgreSQL) as opposed to a bug:
 * such a failure is answered 503 `unavailable` with `Retry-After` and logged as a degraded
 * dependency, never as an unhandled error (docs/reliability.md).
 */
export type Dependency = 'redis' | 'postgres';

interface ErrorFields {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
}

const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** PostgreSQL SQLSTATEs of a server that is going away, starting up, or out of connections. */
const POSTGRES_CODES = new Set(['57P01', '57P02', '57P03', '08000', '08001', '08003', '08006', '53300']);
const REDIS_MESSAGES = [
  /^Connection is closed\.?$/,
  /^Command timed out$/,
  /enableOfflineQueue/,
  /^Reached the max retries per request limit/,
  // A failover in progress: a cluster whose master is lost, a primary just demoted or still loading.
  /^Too many Cluster redirections/,
  /^Failed to refresh slots cache/,
  /^CLUSTERDOWN/,
  /^TRYAGAIN/,
  /^READONLY/,
  /^LOADING/,
  /^MASTERDOWN/,
  /^Cluster is ended/,
];
const POSTGRES_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect$/,
  /^Client has encountered a connection error/,
  /^Connection ended unexpectedly$/,
];

/** The dependency whose outage caused `error`, or undefined for any other error. */
export function failedDependency(error: unknown, depth = 0): Dependency | undefined {
  if (typeof error !== 'object' || error === null || depth > 3) return undefined;
  const { name, message, code, cause } = error as ErrorFields;
  const text = typeof message === 'string' ? message : '';
  if (name === 'MaxRetriesPerRequestError' || name === 'ClusterAllFailedError' || REDIS_MESSAGES.some((pattern) => pattern.test(text)))
    return 'redis';
  if ((typeof code === 'string' && POSTGRES_CODES.has(code)) || POSTGRES_MESSAGES.some((pattern) => pattern.test(text))) return 'postgres';
  // ioredis hands its commands only the errors above (never a raw socket error); pg hands them the socket's.
  if (typeof code === 'string' && SOCKET_CODES.has(code)) return 'postgres';
  return failedDependency(cause, depth + 1);
}
