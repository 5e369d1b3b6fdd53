/**
 * The time partitions of usage rows (and their rollups, migration 081), ledger entries and routing
 * decisions (migration 080), kept by the maintenance worker: partitions created ahead (months for usage and the ledger, days for routing
 * decisions; a default partition catches anything outside them, so a write never fails for want of
 * one), and routing decisions older than ROUTING_DECISIONS_RETENTION_DAYS dropped by whole days.
 * Usage rows and ledger entries have no retention: the wallet is the sum of its ledger entries.
 */
import type { Pool } from 'pg';
import { deleteOlder, dropPartitionsBefore, ensureTimePartitions } from '../src/db/partitions';
import { ensureUsageRollupPartitions } from '../src/db/repositories/usage-rows';

const DAY_MS = 86_400_000;
/** How far ahead partitions exist after a run (the worker runs hourly; weeks of margin). */
const MONTHS_AHEAD_MS = 62 * DAY_MS;
const DAYS_AHEAD_MS = 7 * DAY_MS;

export async function maintainTimePartitions(db: Pool, nowMs: number): Promise<void> {
  await ensureTimePartitions(db, 'usage_rows', 'month', nowMs - DAY_MS, nowMs + MONTHS_AHEAD_MS);
  await ensureUsageRollupPartitions(db, nowMs - DAY_MS, nowMs + MONTHS_AHEAD_MS);
  await ensureTimePartitions(db, 'ledger_entries', 'month', nowMs - DAY_MS, nowMs + MONTHS_AHEAD_MS);
  await ensureTimePartitions(db, 'routing_decisions', 'day', nowMs - DAY_MS, nowMs + DAYS_AHEAD_MS);
}

export interface RoutingDecisionsRetention {
  partitionsDropped: string[];
  /** Rows deleted one by one: those of the day across the cutoff and of the default partition. */
  rowsDeleted: number;
}

/** Drops the day partitions of routing decisions older than `days`, then the rows and claims left before the cutoff. */
export async function applyRoutingDecisionsRetention(db: Pool, days: number, nowMs: number): Promise<RoutingDecisionsRetention> {
  const cutoff = nowMs - days * DAY_MS;
  const partitionsDropped = await dropPartitionsBefore(db, 'routing_decisions', cutoff);
  const rowsDeleted = await deleteOlder(db, 'routing_decisions', 'request_id, created_at', cutoff);
  // The claims go after their decisions: a claim without its decision would only refuse a reused id.
  await deleteOlder(db, 'routing_decision_ids', 'request_id', cutoff);
  return { partitionsDropped, rowsDeleted };
}
