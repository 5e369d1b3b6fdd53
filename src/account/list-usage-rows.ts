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
}

export interface UsageFilters {
  accountId: number;
  limit: number;
  /** Rows with a smaller id than this (the previous page's last). */
  beforeId?: number;
  apiKeyId?: number;
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
export async function listUsageRows(db: Pool, filters: UsageFilters): Promise<UsageRowRecord[]> {
  const sql = sqlConditions('account_id = ?', filters.accountId);
  const add = sql.add;
  if (filters.beforeId !== undefined) add('id < ?', filters.beforeId);
  if (filters.apiKeyId !== undefined) add('api_key_id = ?', filters.apiKeyId);
  if (filters.model !== undefined) add('model = ?', filters.model);
  if (filters.protocol !== undefined) add('protocol = ?', filters.protocol);
  if (filters.status !== undefined) add('status = ?', filters.status);
  if (filters.from !== undefined) add('started_at >= ?', filters.from);
  if (filters.to !== undefined) add('started_at < ?', filters.to);
  const limit = sql.param(filters.limit + 1);
  const result = await db.query<Row>(
    `SELECT id, request_id, api_key_id, model, protocol, prompt_tokens, completion_tokens, cache_read_tokens,
            cache_write_tokens, reasoning_tokens, images, video_seconds, credits, stream, status, started_at, created_at
       FROM usage_rows WHERE ${sql.where()} ORDER BY id DESC LIMIT ${limit}`,
    sql.values);
  return result.rows.map((row) => ({
    id: Number(row.id), requestId: row.request_id, apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id),
    model: row.model, protocol: row.protocol, promptTokens: row.prompt_tokens, completionTokens: row.completion_tokens,
    cacheReadTokens: row.cache_read_tokens, cacheWriteTokens: row.cache_write_tokens, reasoningTokens: row.reasoning_tokens,
    images: row.images, videoSeconds: row.video_seconds, credits: row.credits, stream: row.stream, status: row.status,
    startedAt: row.started_at, createdAt: row.created_at,
  }));
}
