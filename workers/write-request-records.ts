/**
 * Writes a batch of request records (and their kept bodies) in one statement each. A request may
 * come twice: a provisional record (appended before its answer ended) and the final one (built when
 * the response closed), in either order; the final one wins, whatever arrives later is ignored, so
 * a batch retried after a crash writes nothing twice. A day with no partition yet (records from
 * before the migration's window, or a maintenance worker that has not run) gets its partitions
 * created and the batch is tried again.
 */
import type { Pool } from 'pg';
import { ensureTimePartitions, isMissingPartition } from '../src/db/partitions';
import { inTransaction } from '../src/db/transaction';
import type { RequestRecord } from '../src/requests/request-record';

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

const INSERT_BODIES = `INSERT INTO request_bodies (request_id, account_id, request_body, response_body, stream_events, truncated, created_at)
  SELECT r."requestId", r."accountId", r.bodies->>'request', r.bodies->>'response', (r.bodies->>'streamEvents')::integer,
    coalesce((r.bodies->>'truncated')::boolean, false), to_timestamp(r."startedAt" / 1000.0)
  FROM jsonb_to_recordset($1::jsonb) AS r("requestId" text, "accountId" bigint, bodies jsonb, "startedAt" bigint)
  WHERE r.bodies IS NOT NULL
  ON CONFLICT DO NOTHING`;

/** Creates the day partitions (both tables) from `fromMs`'s day to `toMs`'s day (UTC), as every time-partitioned table's. */
export async function ensureRequestPartitions(db: Pool, fromMs: number, toMs: number): Promise<void> {
  for (const parent of ['request_records', 'request_bodies']) await ensureTimePartitions(db, parent, 'day', fromMs, toMs);
}

/** One record per request: the final one over a provisional one (one statement may not touch a row twice). */
export function latestRecords(records: readonly RequestRecord[]): RequestRecord[] {
  const byId = new Map<string, RequestRecord>();
  for (const record of records) {
    const seen = byId.get(record.requestId);
    if (!seen || (seen.provisional && !record.provisional)) byId.set(record.requestId, record);
  }
  return [...byId.values()];
}

export async function writeRequestRecords(db: Pool, batch: readonly RequestRecord[]): Promise<void> {
  if (batch.length === 0) return;
  const records = latestRecords(batch);
  const json = JSON.stringify(records);
  const write = () => inTransaction(db, async (client) => {
    await client.query(INSERT_RECORDS, [json]);
    if (records.some((record) => record.bodies)) await client.query(INSERT_BODIES, [json]);
  });
  try {
    await write();
  } catch (error) {
    if (!isMissingPartition(error)) throw error;
    const times = records.map((record) => record.startedAt);
    await ensureRequestPartitions(db, Math.min(...times), Math.max(...times));
    await write();
  }
}
