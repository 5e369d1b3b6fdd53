/**
 * Runs request-log retention (and the partitions ahead, of the request log and of usage rows, ledger
 * entries and routing decisions; also the webhook delivery log's retention) at start and every
 * `everyMs` (default 1 h).
 * Several maintenance workers may run: a PostgreSQL advisory lock lets one of them do it at a time.
 */
import { releaseMaintenanceLock, tryMaintenanceLock } from '../src/db/repositories/request-records';
import type { Dependencies } from '../src/dependencies';
import { applyRequestLogRetention } from './request-log-retention';
import { maintainTimePartitions } from './time-partitions';

export function startRequestLogMaintenance(
  deps: Pick<Dependencies, 'config' | 'db' | 'logger' | 'clock'>,
  everyMs = 3_600_000,
): { close(): Promise<void> } {
  const logger = deps.logger.child({ component: 'request-log-retention' });
  const settings = deps.config.requestLog;
  let running: Promise<void> | undefined;
  const run = async () => {
    const client = await deps.db.connect();
    try {
      if (!(await tryMaintenanceLock(client))) return;
      try {
        // Partitions ahead of usage rows, ledger entries and routing decisions: independent of the request log's retention.
        await maintainTimePartitions(deps.db, deps.clock.now()).catch((error: unknown) =>
          logger.warn({ err: error }, 'time partitions not created ahead; retried next run'),
        );
        const report = await applyRequestLogRetention(
          deps.db,
          {
            recordsDays: settings.retentionDays,
            bodiesDays: settings.bodiesRetentionDays,
            routingDecisionsDays: settings.routingDecisionsRetentionDays,
            webhookDeliveriesDays: deps.config.webhooks.deliveriesRetentionDays,
          },
          deps.clock.now(),
        );
        logger.info(report, 'request log retention applied');
      } finally {
        await releaseMaintenanceLock(client);
      }
    } finally {
      client.release();
    }
  };
  const tick = () => {
    running ??= run()
      .catch((error: unknown) => logger.warn({ err: error }, 'request log retention failed; retried next run'))
      .finally(() => {
        running = undefined;
      });
  };
  tick();
  const timer = setInterval(tick, everyMs);
  timer.unref();
  return {
    async close() {
      clearInterval(timer);
      await running;
    },
  };
}
