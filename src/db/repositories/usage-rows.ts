/**
 * Every read of `usage_rows` and of its rollups (`usage_rollups`, migration 081): the usage listing
 * and its CSV export's pages, daily usage, spend since a time, each key's spend windows; and the
 * rollups' partitions and retention. Daily usage and windows read the rollups (whole days and hours)
 * and at most an hour of raw rows (`usage_since`): their cost does not grow with the account's traffic.
 */
import type { Pool } from 'pg';
import { dropPartitionsBefore, ensureTimePartitions } from '../partitions';
import type { Queryable } from '../queryable';
import { sqlConditions } from '../sql-conditions';

const DAY_MS = 86_400_000;

export interface UsageRow {
  id: number;
  requestId: string;
  apiKeyId: number | null;
  model: string;
  protocol: string;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  images: number;
  videoSeconds: number;
  credits: number;
  stream: boolean;
  status: string;
  startedAt: Date;
  createdAt: Date;
}

export interface UsageRowFilters {
  accountId: number;
  limit: number;
  beforeId?: number;
  apiKeyId?: number;
  requestId?: string;
  model?: string;
  protocol?: string;
  status?: string;
  from?: Date;
  to?: Date;
}

interface RawRow {
  id: number;
  request_id: string;
  api_key_id: number | null;
  model: string;
  protocol: string;
  prompt_tokens: number;
  completion_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
  images: number;
  video_seconds: number;
  credits: number;
  stream: boolean;
  status: string;
  started_at: Date;
  created_at: Date;
}

/** The account's rows matching the filters, newest first, `limit` of them (keyset pagination on id). */
export async function listUsageRowsPage(db: Queryable, filters: UsageRowFilters): Promise<UsageRow[]> {
  const sql = sqlConditions('u.account_id = ?', filters.accountId);
  const add = sql.add;
  if (filters.beforeId !== undefined) add('u.id < ?', filters.beforeId);
  if (filters.apiKeyId !== undefined) add('u.api_key_id = ?', filters.apiKeyId);
  if (filters.requestId !== undefined) add('u.request_id = ?', filters.requestId);
  if (filters.model !== undefined) add('u.model = ?', filters.model);
  if (filters.protocol !== undefined) add('u.protocol = ?', filters.protocol);
  if (filters.status !== undefined) add('u.status = ?', filters.status);
  if (filters.from !== undefined) add('u.started_at >= ?', filters.from);
  if (filters.to !== undefined) add('u.started_at < ?', filters.to);
  const limit = sql.param(filters.limit);
  const result = await db.query<RawRow>(
    `SELECT u.id, u.request_id, u.api_key_id, u.model, u.protocol, u.prompt_tokens, u.completion_tokens, u.cache_read_tokens,
            u.cache_write_tokens, u.reasoning_tokens, u.images, u.video_seconds, u.credits, u.stream, u.status, u.started_at, u.created_at
       FROM usage_rows u
      WHERE ${sql.where()} ORDER BY u.id DESC LIMIT ${limit}`,
    sql.values,
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    requestId: row.request_id,
    apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id),
    model: row.model,
    protocol: row.protocol,
    promptTokens: row.prompt_tokens,
    completionTokens: row.completion_tokens,
    cacheReadTokens: row.cache_read_tokens,
    cacheWriteTokens: row.cache_write_tokens,
    reasoningTokens: row.reasoning_tokens,
    images: row.images,
    videoSeconds: row.video_seconds,
    credits: row.credits,
    stream: row.stream,
    status: row.status,
    startedAt: row.started_at,
    createdAt: row.created_at,
  }));
}

export interface UsageDayGroup {
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** True: a (day, model) group; false: a (day, key) group. */
  byModel: boolean;
  model: string | null;
  apiKeyId: number | null;
  requests: number;
  credits: number;
  promptTokens: number;
  completionTokens: number;
}

/**
 * The account's usage per UTC day from `fromDay` (the start of a UTC day) on, grouped by model and by
 * key (GROUPING SETS), ordered by day, model, key; from the day rollups.
 */
export async function usageByDay(db: Queryable, accountId: number, fromDay: Date): Promise<UsageDayGroup[]> {
  if (fromDay.getTime() % DAY_MS !== 0) throw new Error(`usageByDay: ${fromDay.toISOString()} is not the start of a UTC day`);
  const result = await db.query<{
    day: string;
    model: string | null;
    api_key_id: string | null;
    by_model: boolean;
    requests: string;
    credits: string;
    prompt_tokens: string;
    completion_tokens: string;
  }>(
    `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
            model, api_key_id, GROUPING(api_key_id) = 1 AS by_model,
            sum(requests) AS requests, sum(credits) AS credits,
            sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens
       FROM usage_rollups
      WHERE account_id = $1 AND span = 'day' AND at >= $2
      GROUP BY GROUPING SETS ((1, model), (1, api_key_id))
      ORDER BY 1, 2, 3`,
    [accountId, fromDay],
  );
  return result.rows.map((row) => ({
    day: row.day,
    byModel: row.by_model,
    model: row.model,
    apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id),
    requests: Number(row.requests),
    credits: Number(row.credits),
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
  }));
}

/**
 * One `usage_since` per time, each with its own parameter (not a lateral join over an array): the
 * planner then knows each window's bounds, estimates a few thousand rollup rows instead of a share of
 * the table, and stays under the JIT's cost threshold (JIT compilation took 300 ms at 2 M rows).
 */
function perWindow(count: number, select: (n: number, param: string) => string): string {
  return Array.from({ length: count }, (_, index) => select(index + 1, `$${index + 2}`)).join('\n UNION ALL\n');
}

/** The account's request count and credits since each time (started_at >= since), in the order given. */
export async function usageTotalsSince(
  db: Queryable,
  accountId: number,
  since: readonly Date[],
): Promise<Array<{ requests: number; credits: number }>> {
  const result = await db.query<{ n: number; requests: string; credits: string }>(
    `SELECT * FROM (${perWindow(
      since.length,
      (n, param) =>
        `SELECT ${n} AS n, COALESCE(sum(requests), 0) AS requests, COALESCE(sum(credits), 0) AS credits FROM usage_since($1, ${param}, true)`,
    )}) t
      ORDER BY n`,
    [accountId, ...since],
  );
  return result.rows.map((row) => ({ requests: Number(row.requests), credits: Number(row.credits) }));
}

export interface KeySpend {
  apiKeyId: number;
  name: string;
  rateLimit5h: number;
  rateLimit1d: number;
  rateLimit7d: number;
  /** Per time given: credits of the key's rows started after it. */
  spent: number[];
  /** Per time given: the start of the key's oldest row after it; null when none. */
  oldest: Array<Date | null>;
}

/**
 * Each key of the account (by id) with its limits and, for each time in `after`, its spend on rows
 * started strictly after it and the start of its oldest such row (rollups and the edge hour's rows).
 */
export async function keySpendAfter(db: Queryable, accountId: number, after: readonly Date[]): Promise<KeySpend[]> {
  const result = await db.query<{
    id: string;
    name: string;
    rate_limit_5h: string;
    rate_limit_1d: string;
    rate_limit_7d: string;
    spent: string[];
    oldest: Array<Date | null>;
  }>(
    `WITH spent AS MATERIALIZED (${perWindow(
      after.length,
      (n, param) =>
        `SELECT ${n} AS n, api_key_id, sum(credits) AS credits, min(first_started_at) AS oldest
          FROM usage_since($1, ${param}, false) WHERE api_key_id IS NOT NULL GROUP BY api_key_id`,
    )})
     SELECT k.id, k.name, k.rate_limit_5h, k.rate_limit_1d, k.rate_limit_7d,
            ARRAY(SELECT COALESCE(s.credits, 0)::bigint FROM generate_series(1, ${after.length}) AS w(n)
                    LEFT JOIN spent s ON s.n = w.n AND s.api_key_id = k.id ORDER BY w.n) AS spent,
            ARRAY(SELECT s.oldest FROM generate_series(1, ${after.length}) AS w(n)
                    LEFT JOIN spent s ON s.n = w.n AND s.api_key_id = k.id ORDER BY w.n) AS oldest
       FROM api_keys k
      WHERE k.account_id = $1
      ORDER BY k.id`,
    [accountId, ...after],
  );
  return result.rows.map((row) => ({
    apiKeyId: Number(row.id),
    name: String(row.name),
    rateLimit5h: Number(row.rate_limit_5h),
    rateLimit1d: Number(row.rate_limit_1d),
    rateLimit7d: Number(row.rate_limit_7d),
    spent: row.spent.map(Number),
    oldest: row.oldest,
  }));
}

/** Creates the rollups' month partitions covering [fromMs, toMs] (with usage_rows' own, by the maintenance worker). */
export async function ensureUsageRollupPartitions(db: Pool, fromMs: number, toMs: number): Promise<void> {
  await ensureTimePartitions(db, 'usage_rollups', 'month', fromMs, toMs);
}

/**
 * Retention of the rollups, with usage_rows' partitions dropped before the same cutoff (a UTC month
 * boundary): drops the rollups' months before it, then deletes any rollup row left before it (in the
 * default partition); returns the partitions dropped.
 */
export async function dropUsageRollupsBefore(db: Pool, cutoffMs: number): Promise<string[]> {
  const dropped = await dropPartitionsBefore(db, 'usage_rollups', cutoffMs);
  await db.query('DELETE FROM usage_rollups WHERE at < $1', [new Date(cutoffMs)]);
  return dropped;
}

/** A key's settled spend per minute (minute number since the epoch, credits) over the 7 days before `nowMs`: what its Redis spend windows are rebuilt from. */
export async function keySpendPerMinute(
  db: Queryable,
  accountId: number,
  keyId: number,
  nowMs: number,
): Promise<Array<{ minute: string; credits: string }>> {
  const result = await db.query<{ minute: string; credits: string }>(
    `SELECT floor(extract(epoch FROM started_at) / 60)::bigint::text AS minute, sum(credits)::bigint::text AS credits
       FROM usage_rows
      WHERE api_key_id = $1 AND account_id = $2 AND started_at > to_timestamp($3::double precision / 1000) - interval '7 days'
      GROUP BY 1`,
    [keyId, accountId, nowMs],
  );
  return result.rows;
}
