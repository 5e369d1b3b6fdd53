/**
 * `GET …/requests/{request_id}`: the record, its routing decision chain (when routing was eventful),
 * its usage row and ledger entries (billed requests only), and its bodies when they were kept.
 */
import type { Pool } from 'pg';
import { listLedgerEntries } from '../db/repositories/ledger';
import { listUsageRows } from '../account/list-usage-rows';
import { presentLedgerEntry } from '../account/present-ledger-entry';
import { presentUsageRow } from '../account/present-usage-row';
import { findRoutingDecision } from '../routing/routing-decisions';
import { RECORD_COLUMNS, type RequestRecordRow } from './list-request-records';
import { presentRequestRecord } from './present-request-record';

interface BodiesRow { request_body: string | null; response_body: string | null; stream_events: number | null; truncated: boolean }

/** undefined when no such request (or, with `accountId`, not one of that account's). */
export async function readRequestDetail(db: Pool, requestId: string, accountId: number | undefined): Promise<Record<string, unknown> | undefined> {
  const found = await db.query<RequestRecordRow>(
    `SELECT ${RECORD_COLUMNS} FROM request_records WHERE request_id = $1 AND ($2::bigint IS NULL OR account_id = $2) LIMIT 1`, [requestId, accountId ?? null]);
  const row = found.rows[0];
  if (!row) return undefined;
  const owner = Number(row.account_id);
  const [routing, usage, ledger, bodies] = await Promise.all([
    findRoutingDecision(db, owner, requestId),
    listUsageRows(db, { accountId: owner, requestId, limit: 1 }),
    listLedgerEntries(db, { accountId: owner, reference: requestId, limit: 20 }),
    db.query<BodiesRow>('SELECT request_body, response_body, stream_events, truncated FROM request_bodies WHERE request_id = $1 AND created_at = $2', [requestId, row.created_at]),
  ]);
  const kept = bodies.rows[0];
  return {
    ...presentRequestRecord(row),
    routing: routing ?? null,
    usage: usage[0] ? presentUsageRow(usage[0]) : null,
    ledger_entries: ledger.slice(0, 20).map(presentLedgerEntry),
    bodies: kept ? { request: kept.request_body, response: kept.response_body, stream_events: kept.stream_events, truncated: kept.truncated } : null,
  };
}
