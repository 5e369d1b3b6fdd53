/**
 * One page of request records, newest first (keyset pagination on created_at, request_id), with the
 * listing's filters: the query parameters and the cursor become the repository's filters
 * (db/repositories/request-records: every filter has an index with the account and the time behind
 * it, and the statement is bounded to recent day partitions first).
 */
import type { Queryable } from '../db/queryable';
import { listRecordsNewestFirst, type RecordFilters, type RequestRecordRow } from '../db/repositories/request-records';
import { GatewayError } from '../errors/gateway-error';
import type { RequestsQuery } from './request-query-schemas';

const CURSOR_KIND = 'requests';

export function encodeRequestCursor(row: Pick<RequestRecordRow, 'cursor_time' | 'request_id'>): string {
  return Buffer.from(`${CURSOR_KIND}|${row.cursor_time}|${row.request_id}`, 'utf8').toString('base64url');
}

function decodeRequestCursor(cursor: string): { time: string; requestId: string } {
  const match = /^requests\|(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z)\|([A-Za-z0-9_-]{1,200})$/.exec(
    Buffer.from(cursor, 'base64url').toString('utf8'),
  );
  if (!match)
    throw new GatewayError('invalid_request', 'cursor: not a cursor returned by this listing (use next_cursor as given)', {
      param: 'cursor',
    });
  return { time: match[1]!, requestId: match[2]! };
}

function filtersOf(accountId: number | undefined, query: RequestsQuery): RecordFilters {
  const status = query.status;
  return {
    accountId: accountId ?? query.account_id,
    before: query.cursor === undefined ? undefined : decodeRequestCursor(query.cursor),
    outcome: status && 'outcome' in status ? status.outcome : undefined,
    status: status && 'status' in status ? status.status : undefined,
    statusFrom: status && 'statusClass' in status ? status.statusClass * 100 : undefined,
    statusBelow: status && 'statusClass' in status ? status.statusClass * 100 + 100 : undefined,
    errorClass: query.error_class,
    model: query.model,
    apiKeyId: query.api_key_id,
    protocol: query.protocol,
    upstreamAccountId: query.upstream_account_id,
    since: query.since,
    until: query.until,
  };
}

/** Up to `limit + 1` rows (the extra one tells whether another page exists); `accountId` undefined: every account (operators). */
export async function listRequestRecords(db: Queryable, accountId: number | undefined, query: RequestsQuery): Promise<RequestRecordRow[]> {
  return listRecordsNewestFirst(db, { ...filtersOf(accountId, query), limit: query.limit + 1, nowMs: Date.now() });
}
