/** One page of an account's usage rows, newest first, with the listing's filters (keyset pagination on id). */
import type { Queryable } from '../db/queryable';
import { listUsageRowsPage, type UsageRow, type UsageRowFilters } from '../db/repositories/usage-rows';
import { requestTimingsBetween } from '../db/repositories/request-records';

/** A usage row with its request's duration and time to first byte from the request log (null when not recorded). */
export interface UsageRowRecord extends UsageRow {
  durationMs: number | null;
  ttfbMs: number | null;
}

/** The listing's filters (on the request's start time: `from` inclusive, `to` exclusive; `beforeId`: the previous page's last id). */
export type UsageFilters = UsageRowFilters;

/** Up to `limit + 1` rows: the extra one only tells whether another page exists. */
export async function listUsageRows(db: Queryable, filters: UsageFilters, options: { timings?: boolean } = {}): Promise<UsageRowRecord[]> {
  const rows = await listUsageRowsPage(db, { ...filters, limit: filters.limit + 1 });
  // `timings: false` (the CSV export, which has no such columns): duration and TTFB left null.
  const timings = options.timings === false ? new Map<string, never>() : await requestTimings(db, rows);
  return rows.map((row) => ({
    ...row,
    durationMs: timings.get(row.requestId)?.duration_ms ?? null,
    ttfbMs: timings.get(row.requestId)?.ttfb_ms ?? null,
  }));
}

const MINUTE_MS = 60_000;

/**
 * The request records of these rows: same id, arrived within a minute of the usage's start. One query
 * over the page's time span, so PostgreSQL plans it on those days' partitions only (a join per row
 * would be planned over every day partition of the request log: tens of milliseconds at 90 days).
 */
async function requestTimings(
  db: Queryable,
  rows: readonly UsageRow[],
): Promise<Map<string, { duration_ms: number; ttfb_ms: number | null }>> {
  const found = new Map<string, { duration_ms: number; ttfb_ms: number | null }>();
  if (rows.length === 0) return found;
  const starts = rows.map((row) => row.startedAt.getTime());
  const records = await requestTimingsBetween(
    db,
    rows.map((row) => row.requestId),
    new Date(Math.min(...starts) - MINUTE_MS),
    new Date(Math.max(...starts) + MINUTE_MS),
  );
  const startedAt = new Map(rows.map((row) => [row.requestId, row.startedAt.getTime()]));
  for (const record of records) {
    const start = startedAt.get(record.request_id);
    if (start !== undefined && Math.abs(record.created_at.getTime() - start) <= MINUTE_MS && !found.has(record.request_id))
      found.set(record.request_id, record);
  }
  return found;
}
