/**
 * The request log's records in PostgreSQL (`request_records`, day partitions, migration 060): the
 * worker's batch write, the listing (newest first, keyset cursor), one record, the figures over a
 * window, the error-rate alert's counts, the producer's "already written" check, the day partitions
 * of both request-log tables, retention, and the maintenance worker's lock.
 */
import type { Pool, PoolClient } from 'pg';
import { deleteOlder, dropPartitionsBefore, ensureTimePartitions } from '../partitions';
import type { Queryable } from '../queryable';
import { sqlConditions, type SqlConditions } from '../sql-conditions';

const DAY_MS = 86_400_000;

export interface RequestRecordRow {
  request_id: string;
  account_id: number;
  api_key_id: number | null;
  protocol: string;
  model: string | null;
  upstream_account_id: number | null;
  status: number;
  outcome: string;
  error_class: string | null;
  duration_ms: number;
  ttfb_ms: number | null;
  input_tokens: number;
  output_tokens: number;
  cost_credits: number;
  stream: boolean;
  replayed: boolean;
  warnings: string[];
  has_bodies: boolean;
  provisional: boolean;
  created_at: Date;
  /** created_at to the microsecond, for the cursor. */
  cursor_time: string;
}

const RECORD_COLUMNS = `request_id, account_id, api_key_id, protocol, model, upstream_account_id, status, outcome, error_class, duration_ms,
  ttfb_ms, input_tokens, output_tokens, cost_credits, stream, replayed, warnings, has_bodies, provisional, created_at,
  to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS cursor_time`;

/** The listing's filters; each one given narrows it (absent: any). */
export interface RecordFilters {
  accountId?: number;
  /** Keyset cursor: records strictly before (created_at, request_id); `time` to the microsecond (ISO). */
  before?: { time: string; requestId: string };
  outcome?: string;
  status?: number;
  /** A status class: `statusFrom <= status < statusBelow`. */
  statusFrom?: number;
  statusBelow?: number;
  errorClass?: string;
  model?: string;
  apiKeyId?: number;
  protocol?: string;
  upstreamAccountId?: number;
  /** created_at >= since. */
  since?: Date;
  /** created_at < until. */
  until?: Date;
}

export interface RecordListing extends RecordFilters {
  /** Rows returned at most. */
  limit: number;
  /** Now (unix ms): where the listing's recent end is when neither the cursor nor `until` bounds it. */
  nowMs: number;
}

function listingConditions(filters: RecordFilters): SqlConditions {
  const sql = sqlConditions();
  const add = sql.add;
  if (filters.accountId !== undefined) add('account_id = ?', filters.accountId);
  if (filters.before !== undefined) {
    add('created_at <= ?::timestamptz', filters.before.time);
    add(`(created_at, request_id) < ($${sql.values.length}::timestamptz, ?)`, filters.before.requestId);
  }
  if (filters.outcome !== undefined) add('outcome = ?', filters.outcome);
  if (filters.status !== undefined) add('status = ?', filters.status);
  if (filters.statusFrom !== undefined) add('status >= ?', filters.statusFrom);
  if (filters.statusBelow !== undefined) add('status < ?', filters.statusBelow);
  if (filters.errorClass !== undefined) add('error_class = ?', filters.errorClass);
  if (filters.model !== undefined) add('model = ?', filters.model);
  if (filters.apiKeyId !== undefined) add('api_key_id = ?', filters.apiKeyId);
  if (filters.protocol !== undefined) add('protocol = ?', filters.protocol);
  if (filters.upstreamAccountId !== undefined) add('upstream_account_id = ?', filters.upstreamAccountId);
  if (filters.since !== undefined) add('created_at >= ?', filters.since);
  if (filters.until !== undefined) add('created_at < ?', filters.until);
  return sql;
}

/** A slice of the time line: created_at >= from (when given) and created_at < below (when given). */
interface TimeSlice {
  from?: Date;
  below?: Date;
}

async function selectPage(db: Queryable, listing: RecordListing, slice: TimeSlice): Promise<RequestRecordRow[]> {
  const sql = listingConditions(listing);
  if (slice.from !== undefined) sql.add('created_at >= ?', slice.from);
  if (slice.below !== undefined) sql.add('created_at < ?', slice.below);
  const limit = sql.param(listing.limit);
  const result = await db.query<RequestRecordRow>(
    `SELECT ${RECORD_COLUMNS} FROM request_records WHERE ${sql.where()} ORDER BY created_at DESC, request_id DESC LIMIT ${limit}`,
    sql.values,
  );
  return result.rows;
}

/** How far back from the listing's newest end each statement reaches before the last one (which has no lower bound). */
const RECENT_WINDOWS_MS = [DAY_MS, 7 * DAY_MS, 31 * DAY_MS];

/**
 * Up to `limit` records, newest first. Planning one statement over every day partition (90 days:
 * ~97 partitions, 10 indexes each) costs far more than running it (tens of ms against a few), so the
 * time line is read backwards in slices: the last day, the six days before, the 24 before those,
 * then the rest; each slice's bounds are constants that prune the other partitions at plan time, so
 * no partition is planned twice. Slices follow each other until `limit` rows are found; the rows of a
 * slice are all older than those of the slices before it, so the pages are the one statement's:
 * same rows, same order, same cursor. (Each slice is its own statement: a record written meanwhile
 * is seen as by a listing made a moment earlier or later, as between two pages.)
 */
export async function listRecordsNewestFirst(db: Queryable, listing: RecordListing): Promise<RequestRecordRow[]> {
  const ends = [listing.nowMs];
  if (listing.before !== undefined) ends.push(Date.parse(listing.before.time));
  if (listing.until !== undefined) ends.push(listing.until.getTime());
  const newest = Math.min(...ends);
  const rows: RequestRecordRow[] = [];
  let below: Date | undefined;
  for (const windowMs of [...RECENT_WINDOWS_MS, undefined]) {
    const fromMs = windowMs === undefined ? undefined : newest - windowMs;
    // `since` bounds the listing at least as tightly: this slice is the last.
    const from = fromMs === undefined || (listing.since !== undefined && fromMs <= listing.since.getTime()) ? undefined : new Date(fromMs);
    rows.push(...(await selectPage(db, { ...listing, limit: listing.limit - rows.length }, { from, below })));
    if (rows.length >= listing.limit || from === undefined) break;
    below = from;
  }
  return rows;
}

/** One record by id (`accountId`: only if it is that account's). */
export async function findRequestRecord(
  db: Queryable,
  requestId: string,
  accountId: number | undefined,
): Promise<RequestRecordRow | undefined> {
  const found = await db.query<RequestRecordRow>(
    `SELECT ${RECORD_COLUMNS} FROM request_records WHERE request_id = $1 AND ($2::bigint IS NULL OR account_id = $2) LIMIT 1`,
    [requestId, accountId ?? null],
  );
  return found.rows[0];
}

/** Of these request ids, those whose final (not provisional) record is written. */
export async function finalRecordIds(db: Queryable, requestIds: readonly string[]): Promise<string[]> {
  const written = await db.query<{ request_id: string }>(
    'SELECT request_id FROM request_records WHERE request_id = ANY($1::text[]) AND NOT provisional',
    [requestIds],
  );
  return written.rows.map((row) => row.request_id);
}

/** An account's requests and errors (aborts are neither errors nor left out of requests) since a time. */
export async function accountRequestOutcomes(db: Queryable, accountId: number, since: Date): Promise<{ requests: number; errors: number }> {
  const result = await db.query<{ requests: string; errors: string }>(
    `SELECT count(*) AS requests, count(*) FILTER (WHERE outcome = 'error') AS errors
       FROM request_records WHERE account_id = $1 AND created_at >= $2`,
    [accountId, since],
  );
  return { requests: Number(result.rows[0]?.requests ?? 0), errors: Number(result.rows[0]?.errors ?? 0) };
}

export interface RecordStatsGroup {
  key: string | number | null;
  requests: number;
  errors: number;
  aborted: number;
  duration: number[] | null;
  ttfb: number[] | null;
  input_tokens: number;
  output_tokens: number;
  ok_output_tokens: number;
  ok_duration_ms: number;
}

export interface RecordStatsWindow {
  since: Date;
  until: Date;
  accountId: number | null;
  by: 'model' | 'upstream_account_id';
}

const statsWhere = `created_at >= $1 AND created_at < $2 AND ($3::bigint IS NULL OR account_id = $3)`;
const statsValues = (window: RecordStatsWindow) => [window.since, window.until, window.accountId];

/** Per model or upstream account over the window (at most 200 groups, busiest first): counts, percentiles (p50, p95, p99) and tokens. */
export async function recordStatsGroups(db: Queryable, window: RecordStatsWindow): Promise<RecordStatsGroup[]> {
  const result = await db.query<RecordStatsGroup>(
    `SELECT ${window.by} AS key, count(*)::int AS requests,
        count(*) FILTER (WHERE outcome = 'error')::int AS errors, count(*) FILTER (WHERE outcome = 'aborted')::int AS aborted,
        percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY duration_ms) AS duration,
        percentile_cont(ARRAY[0.5, 0.95, 0.99]) WITHIN GROUP (ORDER BY ttfb_ms) AS ttfb,
        coalesce(sum(input_tokens), 0)::bigint AS input_tokens, coalesce(sum(output_tokens), 0)::bigint AS output_tokens,
        coalesce(sum(output_tokens) FILTER (WHERE outcome = 'ok'), 0)::bigint AS ok_output_tokens,
        coalesce(sum(duration_ms) FILTER (WHERE outcome = 'ok' AND output_tokens > 0), 0)::bigint AS ok_duration_ms
      FROM request_records WHERE ${statsWhere} GROUP BY 1 ORDER BY 2 DESC LIMIT 200`,
    statsValues(window),
  );
  return result.rows;
}

/** Per model or upstream account over the window: requests of each error class. */
export async function recordStatsErrorClasses(
  db: Queryable,
  window: RecordStatsWindow,
): Promise<Array<{ key: string | number | null; error_class: string; n: number }>> {
  const result = await db.query<{ key: string | number | null; error_class: string; n: number }>(
    `SELECT ${window.by} AS key, error_class, count(*)::int AS n
      FROM request_records WHERE ${statsWhere} AND error_class IS NOT NULL GROUP BY 1, 2`,
    statsValues(window),
  );
  return result.rows;
}

const INSERT_RECORDS = `INSERT INTO request_records (request_id, account_id, api_key_id, protocol, model, upstream_account_id, status,
    outcome, error_class, duration_ms, ttfb_ms, input_tokens, output_tokens, cost_credits, stream, replayed, warnings, has_bodies, provisional, created_at)
  SELECT r."requestId", r."accountId", r."apiKeyId", r.protocol, r.model, r."upstreamAccountId", r.status, r.outcome, r."errorClass",
    r."durationMs", r."ttfbMs", r."inputTokens", r."outputTokens", r."costCredits", r.stream, r.replayed, r.warnings, r.bodies IS NOT NULL,
    coalesce(r.provisional, false), to_timestamp(r."startedAt" / 1000.0)
  FROM jsonb_to_recordset($1::jsonb) AS r("requestId" text, "accountId" bigint, "apiKeyId" bigint, protocol text, model text,
    "upstreamAccountId" bigint, status integer, outcome text, "errorClass" text, "durationMs" integer, "ttfbMs" integer,
    "inputTokens" bigint, "outputTokens" bigint, "costCredits" bigint, stream boolean, replayed boolean, warnings text[], bodies jsonb,
    provisional boolean, "startedAt" bigint)
  ON CONFLICT (request_id, created_at) DO UPDATE SET api_key_id = excluded.api_key_id, protocol = excluded.protocol, model = excluded.model,
    upstream_account_id = excluded.upstream_account_id, status = excluded.status, outcome = excluded.outcome, error_class = excluded.error_class,
    duration_ms = excluded.duration_ms, ttfb_ms = excluded.ttfb_ms, input_tokens = excluded.input_tokens, output_tokens = excluded.output_tokens,
    cost_credits = excluded.cost_credits, stream = excluded.stream, replayed = excluded.replayed, warnings = excluded.warnings,
    has_bodies = excluded.has_bodies, provisional = false
  WHERE request_records.provisional AND NOT excluded.provisional`;

/**
 * Inserts a batch of records, given as a JSON array of the request log's records (camelCase fields:
 * requestId, accountId, apiKeyId, …, bodies, provisional, startedAt in unix ms), one per request id.
 * A final record replaces a provisional one; anything else already there stays.
 */
export async function insertRequestRecords(db: Queryable, recordsJson: string): Promise<void> {
  await db.query(INSERT_RECORDS, [recordsJson]);
}

/** Creates the day partitions of both request-log tables (records and bodies) from `fromMs`'s day to `toMs`'s day (UTC). */
export async function ensureRequestLogPartitions(db: Pool, fromMs: number, toMs: number): Promise<void> {
  for (const parent of ['request_records', 'request_bodies']) await ensureTimePartitions(db, parent, 'day', fromMs, toMs);
}

/** Retention: drops the day partitions of records that end by the cutoff, then deletes older rows in small batches. */
export async function deleteRecordsBefore(db: Pool, cutoffMs: number): Promise<{ partitionsDropped: string[]; rowsDeleted: number }> {
  const partitionsDropped = await dropPartitionsBefore(db, 'request_records', cutoffMs);
  return { partitionsDropped, rowsDeleted: await deleteOlder(db, 'request_records', 'request_id, created_at', cutoffMs) };
}

const MAINTENANCE_LOCK_ID = 7_349_222;

/** The request-log maintenance's session lock (one maintenance worker at a time); false when another holds it. */
export async function tryMaintenanceLock(client: PoolClient): Promise<boolean> {
  const locked = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [MAINTENANCE_LOCK_ID]);
  return locked.rows[0]?.ok === true;
}

export async function releaseMaintenanceLock(client: PoolClient): Promise<void> {
  await client.query('SELECT pg_advisory_unlock($1)', [MAINTENANCE_LOCK_ID]);
}

/** The duration and time to first byte of these requests, whose records were created between `from` and `to` (the span bounds the day partitions planned). */
export async function requestTimingsBetween(
  db: Queryable,
  requestIds: readonly string[],
  from: Date,
  to: Date,
): Promise<Array<{ request_id: string; duration_ms: number; ttfb_ms: number | null; created_at: Date }>> {
  const result = await db.query<{ request_id: string; duration_ms: number; ttfb_ms: number | null; created_at: Date }>(
    `SELECT request_id, duration_ms, ttfb_ms, created_at FROM request_records
      WHERE request_id = ANY($1::text[]) AND created_at BETWEEN $2 AND $3`,
    [requestIds, from, to],
  );
  return result.rows;
}
