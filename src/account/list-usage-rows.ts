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
  duration_ms: number | null; ttfb_ms: number | null;
}

/** Up to `limit + 1` rows: the extra one only tells whether another page exists. */
export async function listUsageRows(db: Pool, filters: UsageFilters): Promise<UsageRowRecord[]> {
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
            u.cache_write_tokens, u.reasoning_tokens, u.images, u.video_seconds, u.credits, u.stream, u.status, u.started_at, u.created_at,
            r.duration_ms, r.ttfb_ms
       FROM usage_rows u
       -- The request's record: same id, arrived within a minute of the usage's start (prunes the day partitions).
       LEFT JOIN LATERAL (SELECT duration_ms, ttfb_ms FROM request_records
         WHERE request_id = u.request_id AND created_at BETWEEN u.started_at - interval '1 minute' AND u.started_at + interval '1 minute' LIMIT 1) r ON TRUE
      WHERE ${sql.where()} ORDER BY u.id DESC LIMIT ${limit}`,
    sql.values);
  return result.rows.map((row) => ({
    id: Number(row.id), requestId: row.request_id, apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id),
    model: row.model, protocol: row.protocol, promptTokens: row.prompt_tokens, completionTokens: row.completion_tokens,
    cacheReadTokens: row.cache_read_tokens, cacheWriteTokens: row.cache_write_tokens, reasoningTokens: row.reasoning_tokens,
    images: row.images, videoSeconds: row.video_seconds, credits: row.credits, stream: row.stream, status: row.status,
    startedAt: row.started_at, createdAt: row.created_at, durationMs: row.duration_ms, ttfbMs: row.ttfb_ms,
  }));
}
