/**
 * Writes a batch of request records (and their kept bodies) in one statement each; a record already
 * written (same request id and time) is skipped, so a batch retried after a crash writes nothing
 * twice. A day with no partition yet (records from before the migration's window, or a maintenance
 * worker that has not run) gets its partitions created and the batch is tried again.
 */
import type { Pool } from 'pg';
import { isMissingPartition } from '../src/db/partitions';
import { inTransaction } from '../src/db/transaction';
import type { RequestRecord } from '../src/requests/request-record';

const INSERT_RECORDS = `INSERT INTO request_records (request_id, account_id, api_key_id, protocol, model, upstream_account_id, status,
    outcome, error_class, duration_ms, ttfb_ms, input_tokens, output_tokens, cost_credits, stream, replayed, warnings, has_bodies, created_at)
  SELECT r."requestId", r."accountId", r."apiKeyId", r.protocol, r.model, r."upstreamAccountId", r.status, r.outcome, r."errorClass",
    r."durationMs", r."ttfbMs", r."inputTokens", r."outputTokens", r."costCredits", r.stream, r.replayed, r.warnings, r.bodies IS NOT NULL,
    to_timestamp(r."startedAt" / 1000.0)
  FROM jsonb_to_recordset($1::jsonb) AS r("requestId" text, "accountId" bigint, "apiKeyId" bigint, protocol text, model text,
    "upstreamAccountId" bigint, status integer, outcome text, "errorClass" text, "durationMs" integer, "ttfbMs" integer,
    "inputTokens" bigint, "outputTokens" bigint, "costCredits" bigint, stream boolean, replayed boolean, warnings text[], bodies jsonb, "startedAt" bigint)
  ON CONFLICT DO NOTHING`;

const INSERT_BODIES = `INSERT INTO request_bodies (request_id, account_id, request_body, response_body, stream_events, truncated, created_at)
  SELECT r."requestId", r."accountId", r.bodies->>'request', r.bodies->>'response', (r.bodies->>'streamEvents')::integer,
    coalesce((r.bodies->>'truncated')::boolean, false), to_timestamp(r."startedAt" / 1000.0)
  FROM jsonb_to_recordset($1::jsonb) AS r("requestId" text, "accountId" bigint, bodies jsonb, "startedAt" bigint)
  WHERE r.bodies IS NOT NULL
  ON CONFLICT DO NOTHING`;

const DAY_MS = 86_400_000;

/** Creates the day partitions (both tables) from `fromMs`'s day to `toMs`'s day (UTC). */
export async function ensureRequestPartitions(db: Pool, fromMs: number, toMs: number): Promise<void> {
  const day = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);
  await db.query('SELECT request_log_ensure_partitions($1::date, $2::date)', [day(fromMs), day(toMs)]);
}

export async function writeRequestRecords(db: Pool, records: readonly RequestRecord[]): Promise<void> {
  if (records.length === 0) return;
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
