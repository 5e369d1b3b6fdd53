/**
 * Retention of the request log (issue 22, item 7), run by the maintenance worker: day partitions
 * are created a week ahead; request records and bodies older than their periods go by whole day
 * partitions (src/db/partitions.ts: detached CONCURRENTLY, then dropped), and the rows of the day
 * straddling the cutoff go in small batches; routing decisions likewise (workers/time-partitions.ts);
 * the webhook delivery log in small batches (settled deliveries only: one still being retried stays).
 * Every statement runs with a short lock timeout: a busy table is retried next run.
 */
import type { Pool } from 'pg';
import { deleteBodiesBefore } from '../src/db/repositories/request-bodies';
import { deleteRecordsBefore, ensureRequestLogPartitions } from '../src/db/repositories/request-records';
import { deleteSettledDeliveriesBefore } from '../src/db/repositories/webhooks';
import { applyRoutingDecisionsRetention } from './time-partitions';

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
  await ensureRequestLogPartitions(db, nowMs - DAY_MS, nowMs + 7 * DAY_MS);
  const report: RetentionReport = {
    partitionsDropped: [],
    recordsDeleted: 0,
    bodiesDeleted: 0,
    routingDecisionsDeleted: 0,
    webhookDeliveriesDeleted: 0,
  };
  const records = await deleteRecordsBefore(db, nowMs - periods.recordsDays * DAY_MS);
  const bodies = await deleteBodiesBefore(db, nowMs - Math.min(periods.bodiesDays, periods.recordsDays) * DAY_MS);
  report.partitionsDropped.push(...records.partitionsDropped, ...bodies.partitionsDropped);
  report.recordsDeleted = records.rowsDeleted;
  report.bodiesDeleted = bodies.rowsDeleted;
  const decisions = await applyRoutingDecisionsRetention(db, periods.routingDecisionsDays, nowMs);
  report.partitionsDropped.push(...decisions.partitionsDropped);
  report.routingDecisionsDeleted = decisions.rowsDeleted;
  report.webhookDeliveriesDeleted = await deleteSettledDeliveriesBefore(db, nowMs - periods.webhookDeliveriesDays * DAY_MS);
  return report;
}
