/** One page of an account's usage rows, newest first, with the listing's filters (keyset pagination on id). */
import type { Pool } from 'pg';
import { sqlConditions } from '../db/sql-conditions';

export interface UsageRowRecord {
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
  /** From the request log (issue 22): the request's duration and time to first byte as the API measured them; null when not recorded. */
  durationMs: number | null;
  ttfbMs: number | null;
}

export interface UsageFilters {
  accountId: number;
  limit: number;
  /** Rows with a smaller id than this (the previous page's last). */
  beforeId?: number;
  apiKeyId?: number;
  /** One request's row. */
  requestId?: string;
  model?: string;
  protocol?: string;
  status?: string;
  /** On the request's start time: from inclusive, to exclusive. */
  from?: Date;
  to?: Date;
}

interface Row {
  id: number; request_id: string; api_key_id: number | null; model: string; protocol: string; prompt_tokens: number;
  completion_tokens: number; cache_read_tokens: number; cache_write_tokens: number; reasoning_tokens: number;
  images: number; video_seconds: number; credits: number; stream: boolean; status: string; started_at: Date; created_at: Date;
}

/** Up to `limit + 1` rows: the extra one only tells whether another page exists. */
export async function listUsageRows(db: Pool, filters: UsageFilters, options: { timings?: boolean } = {}): Promise<UsageRowRecord[]> {
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
  const limit = sql.param(filters.limit + 1);
  const result = await db.query<Row>(
    `SELECT u.id, u.request_id, u.api_key_id, u.model, u.protocol, u.prompt_tokens, u.completion_tokens, u.cache_read_tokens,
            u.cache_write_tokens, u.reasoning_tokens, u.images, u.video_seconds, u.credits, u.stream, u.status, u.started_at, u.created_at
       FROM usage_rows u
      WHERE ${sql.where()} ORDER BY u.id DESC LIMIT ${limit}`,
    sql.values);
  // `timings: false` (the CSV export, which has no such columns): duration and TTFB left null.
  const timings = options.timings === false ? new Map<string, never>() : await requestTimings(db, result.rows);
  return result.rows.map((row) => ({
    id: Number(row.id), requestId: row.request_id, apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id),
    model: row.model, protocol: row.protocol, promptTokens: row.prompt_tokens, completionTokens: row.completion_tokens,
    cacheReadTokens: row.cache_read_tokens, cacheWriteTokens: row.cache_write_tokens, reasoningTokens: row.reasoning_tokens,
    images: row.images, videoSeconds: row.video_seconds, credits: row.credits, stream: row.stream, status: row.status,
    startedAt: row.started_at, createdAt: row.created_at,
    durationMs: timings.get(row.request_id)?.duration_ms ?? null, ttfbMs: timings.get(row.request_id)?.ttfb_ms ?? null,
  }));
}

const MINUTE_MS = 60_000;

/**
 * The request records of these rows: same id, arrived within a minute of the usage's start. One query
 * over the page's time span, so PostgreSQL plans it on those days' partitions only (a join per row
 * would be planned over every day partition of the request log: tens of milliseconds at 90 days).
 */
async function requestTimings(db: Pool, rows: readonly Row[]): Promise<Map<string, { duration_ms: number; ttfb_ms: number | null }>> {
  const found = new Map<string, { duration_ms: number; ttfb_ms: number | null }>();
  if (rows.length === 0) return found;
  const starts = rows.map((row) => row.started_at.getTime());
  const records = await db.query<{ request_id: string; duration_ms: number; ttfb_ms: number | null; created_at: Date }>(
    `SELECT request_id, duration_ms, ttfb_ms, created_at FROM request_records
      WHERE request_id = ANY($1::text[]) AND created_at BETWEEN $2 AND $3`,
    [rows.map((row) => row.request_id), new Date(Math.min(...starts) - MINUTE_MS), new Date(Math.max(...starts) + MINUTE_MS)]);
  const startedAt = new Map(rows.map((row) => [row.request_id, row.started_at.getTime()]));
  for (const record of records.rows) {
    const start = startedAt.get(record.request_id);
    if (start !== undefined && Math.abs(record.created_at.getTime() - start) <= MINUTE_MS && !found.has(record.request_id)) found.set(record.request_id, record);
  }
  return found;
}
