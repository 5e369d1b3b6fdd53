/**
 * Retention of the request log (issue 22, item 7), run by the maintenance worker: day partitions
 * are created a week ahead; request records and bodies older than their periods go by whole day
 * partitions (src/db/partitions.ts: detached CONCURRENTLY, then dropped), and the rows of the day
 * straddling the cutoff go in small batches; routing decisions likewise (workers/time-partitions.ts);
 * the webhook delivery log in small batches (settled deliveries only: one still being retried stays).
 * Every statement runs with a short lock timeout: a busy table is retried next run.
 */
import type { Pool } from 'pg';
import { deleteOlder, dropPartitionsBefore } from '../src/db/partitions';
import { applyRoutingDecisionsRetention } from './time-partitions';
import { ensureRequestPartitions } from './write-request-records';

const DAY_MS = 86_400_000;

export interface RetentionPeriods {
  recordsDays: number;
  bodiesDays: number;
  routingDecisionsDays: number;
  webhookDeliveriesDays: number;
}

export interface RetentionReport {
  partitionsDropped: string[];
  recordsDeleted: number;
  bodiesDeleted: number;
  routingDecisionsDeleted: number;
  webhookDeliveriesDeleted: number;
}

export async function applyRequestLogRetention(db: Pool, periods: RetentionPeriods, nowMs: number): Promise<RetentionReport> {
  await ensureRequestPartitions(db, nowMs - DAY_MS, nowMs + 7 * DAY_MS);
  const report: RetentionReport = { partitionsDropped: [], recordsDeleted: 0, bodiesDeleted: 0, routingDecisionsDeleted: 0, webhookDeliveriesDeleted: 0 };
  const tables = [
    { parent: 'request_records', cutoff: nowMs - periods.recordsDays * DAY_MS, counter: 'recordsDeleted' as const },
    { parent: 'request_bodies', cutoff: nowMs - Math.min(periods.bodiesDays, periods.recordsDays) * DAY_MS, counter: 'bodiesDeleted' as const },
  ];
  for (const { parent, cutoff, counter } of tables) {
    report.partitionsDropped.push(...await dropPartitionsBefore(db, parent, cutoff));
    report[counter] = await deleteOlder(db, parent, 'request_id, created_at', cutoff);
  }
  const decisions = await applyRoutingDecisionsRetention(db, periods.routingDecisionsDays, nowMs);
  report.partitionsDropped.push(...decisions.partitionsDropped);
  report.routingDecisionsDeleted = decisions.rowsDeleted;
  report.webhookDeliveriesDeleted = await deleteOlder(db, 'webhook_deliveries', 'id', nowMs - periods.webhookDeliveriesDays * DAY_MS, "status <> 'pending'");
  return report;
}
