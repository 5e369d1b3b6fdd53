/**
 * Figures of the request log over a window (issue 22, item 4), per model or per upstream account:
 * requests, errors by class, aborts, p50/p95/p99 of duration and of time to first byte, tokens, and
 * output tokens per second (output tokens over the duration of the successful requests that produced
 * them). Read straight from `request_records`, pruned to the window's day partitions.
 */
import type { Pool } from 'pg';
import { recordStatsErrorClasses, recordStatsGroups, type RecordStatsWindow } from '../db/repositories/request-records';
import { GatewayError } from '../errors/gateway-error';
import type { StatsQuery } from './request-query-schemas';

const DAY_MS = 86_400_000;
const MAX_WINDOW_MS = 31 * DAY_MS;

const percentiles = (values: number[] | null) => ({
  p50: values?.[0] === undefined || values[0] === null ? null : Math.round(values[0]),
  p95: values?.[1] === undefined || values[1] === null ? null : Math.round(values[1]),
  p99: values?.[2] === undefined || values[2] === null ? null : Math.round(values[2]),
});

export async function requestStats(
  db: Pool,
  accountId: number | undefined,
  query: StatsQuery,
  nowMs: number,
): Promise<Record<string, unknown>> {
  const until = query.until ?? new Date(nowMs);
  const since = query.since ?? new Date(until.getTime() - DAY_MS);
  if (until.getTime() - since.getTime() > MAX_WINDOW_MS)
    throw new GatewayError('invalid_request', 'since: the window is at most 31 days', { param: 'since' });
  const window: RecordStatsWindow = {
    since,
    until,
    accountId: accountId ?? query.account_id ?? null,
    by: query.by === 'model' ? 'model' : 'upstream_account_id',
  };
  const [groups, classes] = await Promise.all([recordStatsGroups(db, window), recordStatsErrorClasses(db, window)]);
  const byClass = new Map<string, Record<string, number>>();
  for (const row of classes) {
    const key = String(row.key);
    const entry = byClass.get(key) ?? {};
    entry[row.error_class] = row.n;
    byClass.set(key, entry);
  }
  return {
    object: 'request_stats',
    by: query.by,
    since: since.toISOString(),
    until: until.toISOString(),
    data: groups.map((row) => ({
      [query.by === 'model' ? 'model' : 'upstream_account_id']: row.key === null ? null : query.by === 'model' ? row.key : Number(row.key),
      requests: row.requests,
      errors: row.errors,
      aborted: row.aborted,
      error_rate: row.requests === 0 ? 0 : row.errors / row.requests,
      errors_by_class: byClass.get(String(row.key)) ?? {},
      duration_ms: percentiles(row.duration),
      ttfb_ms: percentiles(row.ttfb),
      input_tokens: Number(row.input_tokens),
      output_tokens: Number(row.output_tokens),
      output_tokens_per_second:
        Number(row.ok_duration_ms) > 0 ? Math.round((Number(row.ok_output_tokens) / Number(row.ok_duration_ms)) * 1000 * 10) / 10 : null,
    })),
  };
}
