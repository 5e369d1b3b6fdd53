/**
 * A dependency outage is logged once as "degraded" (then once per quiet period with the number of
 * requests refused meanwhile), not once per request as a crash: during a Redis outage every request
 * fails the same way, and thousands of identical error lines hide everything else.
 */
import type { Dependency } from '../errors/dependency-failure';
import type { Logger } from './logger';

const QUIET_MS = 30_000;

interface Outage {
  loggedAt: number;
  refusedSince: number;
}

const outagesByLogger = new WeakMap<Logger, Map<Dependency, Outage>>();

export function reportDegraded(logger: Logger, dependency: Dependency, cause: unknown, now = Date.now()): void {
  let outages = outagesByLogger.get(logger);
  if (!outages) {
    outages = new Map();
    outagesByLogger.set(logger, outages);
  }
  const outage = outages.get(dependency);
  if (outage && now - outage.loggedAt < QUIET_MS) {
    outage.refusedSince++;
    return;
  }
  const message = cause instanceof Error ? cause.message : String(cause);
  logger.warn(
    { dependency, cause: message, refusedSinceLastReport: outage?.refusedSince ?? 0 },
    'dependency degraded: refusing requests with 503',
  );
  outages.set(dependency, { loggedAt: now, refusedSince: 0 });
}
