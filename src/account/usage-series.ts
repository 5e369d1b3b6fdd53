/**
 * The console's charts: an account's usage per UTC day, grouped by model and by key, and its spend
 * today / last 7 days / last 30 days. Summed in PostgreSQL (GROUPING SETS), never in the browser.
 */
import type { Pool } from 'pg';
import { creditsToUsd } from './credits-to-usd';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface SeriesPoint {
  day: string;
  requests: number;
  credits: number;
  cost: number;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface UsageSeries {
  object: 'usage_series';
  days: number;
  from: string;
  totals: Record<'today' | 'last_7d' | 'last_30d', { requests: number; credits: number; cost: number }>;
  by_model: Array<SeriesPoint & { model: string }>;
  by_key: Array<SeriesPoint & { api_key_id: number | null }>;
}

interface Row {
  day: string; model: string | null; api_key_id: string | null; by_model: boolean;
  requests: string; credits: string; prompt_tokens: string; completion_tokens: string;
}

function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

function point(row: Row): SeriesPoint {
  const credits = Number(row.credits);
  const prompt = Number(row.prompt_tokens);
  const completion = Number(row.completion_tokens);
  return {
    day: row.day, requests: Number(row.requests), credits, cost: creditsToUsd(credits),
    prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion,
  };
}

export async function usageSeries(db: Pool, accountId: number, nowMs: number, days: number): Promise<UsageSeries> {
  const today = startOfUtcDay(nowMs);
  const from = new Date(today - (days - 1) * DAY_MS);
  const grouped = await db.query<Row>(
    `SELECT to_char(date_trunc('day', started_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day,
            model, api_key_id, GROUPING(api_key_id) = 1 AS by_model,
            count(*) AS requests, sum(credits) AS credits,
            sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens
       FROM usage_rows
      WHERE account_id = $1 AND started_at >= $2
      GROUP BY GROUPING SETS ((1, model), (1, api_key_id))
      ORDER BY 1, 2, 3`,
    [accountId, from]);
  const totals = await db.query<{ span: string; requests: string; credits: string }>(
    `SELECT span, count(u.id) AS requests, COALESCE(sum(u.credits), 0) AS credits
       FROM (VALUES ('today', $2::timestamptz), ('last_7d', $3::timestamptz), ('last_30d', $4::timestamptz)) AS s(span, since)
       LEFT JOIN usage_rows u ON u.account_id = $1 AND u.started_at >= s.since
      GROUP BY span`,
    [accountId, new Date(today), new Date(nowMs - 7 * DAY_MS), new Date(nowMs - 30 * DAY_MS)]);
  const total = (span: string) => {
    const row = totals.rows.find((r) => r.span === span);
    const credits = Number(row?.credits ?? 0);
    return { requests: Number(row?.requests ?? 0), credits, cost: creditsToUsd(credits) };
  };
  return {
    object: 'usage_series',
    days,
    from: from.toISOString(),
    totals: { today: total('today'), last_7d: total('last_7d'), last_30d: total('last_30d') },
    by_model: grouped.rows.filter((r) => r.by_model).map((r) => ({ ...point(r), model: r.model ?? '' })),
    by_key: grouped.rows.filter((r) => !r.by_model).map((r) => ({ ...point(r), api_key_id: r.api_key_id === null ? null : Number(r.api_key_id) })),
  };
}
