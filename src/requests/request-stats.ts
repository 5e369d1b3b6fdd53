/**
 * Figures of the request log over a window (issue 22, item 4), per model or per upstream account:
 * requests, errors by class, aborts, p50/p95/p99 of duration and of time to first byte, tokens, and
 * output tokens per second (output tokens over the duration of the successful requests that produced
 * them). Read straight from `request_records`, pruned to the window's day partitions.
 */
import type { Pool } from 'pg';
import { GatewayError } from '../errors/gateway-error';
import type { StatsQuery } from './request-query-schemas';

const DAY_MS = 86_400_000;
const MAX_WINDOW_MS = 31 * DAY_MS;

interface Row {
  key: string | number | null; requests: number; errors: number; aborted: number; duration: number[] | null; ttfb: number[] | null;
  input_tokens: number; output_tokens: number; ok_output_tokens: number; ok_duration_ms: number;
}

const percentiles = (values: number[] | null) => ({
  p50: values?.[0] === undefined || values[0] === null ? null : Math.round(values[0]),
  p95: values?.[1] === undefined || values[1] === null ? null : Math.round(values[1]),
  p99: values?.[2] === undefined || values[2] === null ? null : Math.round(values[2]),
});

export async function requestStats(db: Pool, accountId: number | undefined, query: StatsQuery, nowMs: number): Promise<Record<string, unknown>> {
  const until = query.until ?? new Date(nowMs);
  const since = query.since ?? new Date(until.getTime() - DAY_MS);
  if (until.getTime() - since.getTime() > MAX_WINDOW_MS) throw new GatewayError('invalid_request', 'since: the window is at most 31 days', { param: 'since' });
  const column = query.by === 'model' ? 'model' : 'upstream_account_id';
  const account = accountId ?? query.account_id ?? null;
  const where = `created_at >= $1 AND created_at < $2 AND ($3::bigint IS NULL OR account_id = $3)`;
  const values = [since, until, account];
  const [groups, classes] = await Promise.all([
    db.query<Row>(`SELECT ${column} AS key, count(*)::int AS requests,
        count(*) FILTER (WHERE outcome = 'error')::int AS errors, count(*) FILTER (WHERE outcome = 'aborted')::int AS aborted,
        percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY duration_ms) AS duration,
        percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY ttfb_ms) AS ttfb,
        coalesce(sum(input_tokens), 0)::bigint AS input_tokens, coalesce(sum(output_tokens), 0)::bigint AS output_tokens,
        coalesce(sum(output_tokens) FILTER (WHERE outcome = 'ok'), 0)::bigint AS ok_output_tokens,
        coalesce(sum(duration_ms) FILTER (WHERE outcome = 'ok' AND output_tokens > 0), 0)::bigint AS ok_duration_ms
      FROM request_records WHERE ${where} GROUP BY 1 ORDER BY 2 DESC LIMIT 200`, values),
    db.query<{ key: string | number | null; error_class: string; n: number }>(`SELECT ${column} AS key, error_class, count(*)::int AS n
      FROM request_records WHERE ${where} AND error_class IS NOT NULL GROUP BY 1, 2`, values),
  ]);
  const byClass = new Map<string, Record<string, number>>();
  for (const row of classes.rows) {
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
    data: groups.rows.map((row) => ({
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
      output_tokens_per_second: Number(row.ok_duration_ms) > 0 ? Math.round((Number(row.ok_output_tokens) / Number(row.ok_duration_ms)) * 1000 * 10) / 10 : null,
    })),
  };
}
