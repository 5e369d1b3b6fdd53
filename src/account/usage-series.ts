/**
 * The console's charts: an account's usage per UTC day, grouped by model and by key, and its spend
 * today / last 7 days / last 30 days. Summed in PostgreSQL from the usage rollups (GROUPING SETS),
 * never in the browser.
 */
import type { Queryable } from '../db/queryable';
import { usageByDay, usageTotalsSince, type UsageDayGroup } from '../db/repositories/usage-rows';
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

function startOfUtcDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

function point(group: UsageDayGroup): SeriesPoint {
  return {
    day: group.day,
    requests: group.requests,
    credits: group.credits,
    cost: creditsToUsd(group.credits),
    prompt_tokens: group.promptTokens,
    completion_tokens: group.completionTokens,
    total_tokens: group.promptTokens + group.completionTokens,
  };
}

export async function usageSeries(db: Queryable, accountId: number, nowMs: number, days: number): Promise<UsageSeries> {
  const today = startOfUtcDay(nowMs);
  const from = new Date(today - (days - 1) * DAY_MS);
  const groups = await usageByDay(db, accountId, from);
  const spans = ['today', 'last_7d', 'last_30d'] as const;
  const sums = await usageTotalsSince(db, accountId, [new Date(today), new Date(nowMs - 7 * DAY_MS), new Date(nowMs - 30 * DAY_MS)]);
  const total = (index: number) => {
    const credits = sums[index]?.credits ?? 0;
    return { requests: sums[index]?.requests ?? 0, credits, cost: creditsToUsd(credits) };
  };
  const totals = Object.fromEntries(spans.map((span, index) => [span, total(index)])) as UsageSeries['totals'];
  return {
    object: 'usage_series',
    days,
    from: from.toISOString(),
    totals,
    by_model: groups.filter((g) => g.byModel).map((g) => ({ ...point(g), model: g.model ?? '' })),
    by_key: groups.filter((g) => !g.byModel).map((g) => ({ ...point(g), api_key_id: g.apiKeyId })),
  };
}
