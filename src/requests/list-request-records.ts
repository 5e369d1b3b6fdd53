/**
 * One page of request records, newest first (keyset pagination on created_at, request_id), with the
 * listing's filters. Every filter has an index with the account and the time behind it (migration
 * 060), so the newest page of any one filter reads a few index pages, whatever the table's size.
 */
import type { Pool } from 'pg';
import { sqlConditions } from '../db/sql-conditions';
import { GatewayError } from '../errors/gateway-error';
import type { RequestsQuery } from './request-query-schemas';

export interface RequestRecordRow {
  request_id: string; account_id: number; api_key_id: number | null; protocol: string; model: string | null; upstream_account_id: number | null;
  status: number; outcome: string; error_class: string | null; duration_ms: number; ttfb_ms: number | null; input_tokens: number;
  output_tokens: number; cost_credits: number; stream: boolean; replayed: boolean; warnings: string[]; has_bodies: boolean; provisional: boolean; created_at: Date;
  /** created_at to the microsecond, for the cursor. */
  cursor_time: string;
}

export const RECORD_COLUMNS = `request_id, account_id, api_key_id, protocol, model, upstream_account_id, status, outcome, error_class, duration_ms,
  ttfb_ms, input_tokens, output_tokens, cost_credits, stream, replayed, warnings, has_bodies, provisional, created_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_time`;

const CURSOR_KIND = 'requests';

export function encodeRequestCursor(row: Pick<RequestRecordRow, 'cursor_time' | 'request_id'>): string {
  return Buffer.from(`${CURSOR_KIND}|${row.cursor_time}|${row.request_id}`, 'utf8').toString('base64url');
}

function decodeRequestCursor(cursor: string): { time: string; requestId: string } {
  const match = /^requests\|(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([A-Za-z0-9_-]{1,200})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new GatewayError('invalid_request', 'cursor: not a cursor returned by this listing (use next_cursor as given)', { param: 'cursor' });
  return { time: match[1]!, requestId: match[2]! };
}

/** Up to `limit + 1` rows (the extra one tells whether another page exists); `accountId` undefined: every account (operators). */
export async function listRequestRecords(db: Pool, accountId: number | undefined, query: RequestsQuery): Promise<RequestRecordRow[]> {
  const sql = sqlConditions();
  const add = sql.add;
  const account = accountId ?? query.account_id;
  if (account !== undefined) add('account_id = ?', account);
  if (query.cursor !== undefined) {
    const cursor = decodeRequestCursor(query.cursor);
    add('created_at <= ?::timestamptz', cursor.time);
    add(`(created_at, request_id) < ($${sql.values.length}::timestamptz, ?)`, cursor.requestId);
  }
  const status = query.status;
  if (status && 'outcome' in status) add('outcome = ?', status.outcome);
  if (status && 'status' in status) add('status = ?', status.status);
  if (status && 'statusClass' in status) {
    add('status >= ?', status.statusClass * 100);
    add('status < ?', status.statusClass * 100 + 100);
  }
  if (query.error_class !== undefined) add('error_class = ?', query.error_class);
  if (query.model !== undefined) add('model = ?', query.model);
  if (query.api_key_id !== undefined) add('api_key_id = ?', query.api_key_id);
  if (query.protocol !== undefined) add('protocol = ?', query.protocol);
  if (query.upstream_account_id !== undefined) add('upstream_account_id = ?', query.upstream_account_id);
  if (query.since !== undefined) add('created_at >= ?', query.since);
  if (query.until !== undefined) add('created_at < ?', query.until);
  const limit = sql.param(query.limit + 1);
  const result = await db.query<RequestRecordRow>(
    `SELECT ${RECORD_COLUMNS} FROM request_records WHERE ${sql.where()} ORDER BY created_at DESC, request_id DESC LIMIT ${limit}`, sql.values);
  return result.rows;
}
