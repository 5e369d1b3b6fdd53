/** Every read of `usage_rows`: the usage listing and its CSV export's pages. */
import type { Queryable } from '../queryable';
import { sqlConditions } from '../sql-conditions';

export interface UsageRow {
  id: number; requestId: string; apiKeyId: number | null; model: string; protocol: string; promptTokens: number;
  completionTokens: number; cacheReadTokens: number; cacheWriteTokens: number; reasoningTokens: number;
  images: number; videoSeconds: number; credits: number; stream: boolean; status: string; startedAt: Date; createdAt: Date;
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
  id: number; request_id: string; api_key_id: number | null; model: string; protocol: string; prompt_tokens: number;
  completion_tokens: number; cache_read_tokens: number; cache_write_tokens: number; reasoning_tokens: number;
  images: number; video_seconds: number; credits: number; stream: boolean; status: string; started_at: Date; created_at: Date;
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
    sql.values);
  return result.rows.map((row) => ({
    id: Number(row.id), requestId: row.request_id, apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id),
    model: row.model, protocol: row.protocol, promptTokens: row.prompt_tokens, completionTokens: row.completion_tokens,
    cacheReadTokens: row.cache_read_tokens, cacheWriteTokens: row.cache_write_tokens, reasoningTokens: row.reasoning_tokens,
    images: row.images, videoSeconds: row.video_seconds, credits: row.credits, stream: row.stream, status: row.status,
    startedAt: row.started_at, createdAt: row.created_at,
  }));
}
