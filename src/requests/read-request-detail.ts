/**
 * `GET …/requests/{request_id}`: the record, its routing decision chain (when routing was eventful),
 * its usage row and ledger entries (billed requests only), and its bodies when they were kept.
 */
import type { Pool } from 'pg';
import { listLedgerEntries } from '../db/repositories/ledger';
import { listUsageRows } from '../account/list-usage-rows';
import { presentLedgerEntry } from '../account/present-ledger-entry';
import { presentUsageRow } from '../account/present-usage-row';
import { findRequestBodies } from '../db/repositories/request-bodies';
import { findRequestRecord } from '../db/repositories/request-records';
import { findRoutingDecision } from '../routing/routing-decisions';
import { presentRequestRecord } from './present-request-record';

/** undefined when no such request (or, with `accountId`, not one of that account's). */
export async function readRequestDetail(
  db: Pool,
  requestId: string,
  accountId: number | undefined,
): Promise<Record<string, unknown> | undefined> {
  const row = await findRequestRecord(db, requestId, accountId);
  if (!row) return undefined;
  const owner = Number(row.account_id);
  const [routing, usage, ledger, kept] = await Promise.all([
    findRoutingDecision(db, owner, requestId),
    listUsageRows(db, { accountId: owner, requestId, limit: 1 }),
    listLedgerEntries(db, { accountId: owner, reference: requestId, limit: 20 }),
    findRequestBodies(db, requestId, row.created_at),
  ]);
  return {
    ...presentRequestRecord(row),
    routing: routing ?? null,
    usage: usage[0] ? presentUsageRow(usage[0]) : null,
    ledger_entries: ledger.slice(0, 20).map(presentLedgerEntry),
    bodies: kept
      ? { request: kept.request_body, response: kept.response_body, stream_events: kept.stream_events, truncated: kept.truncated }
      : null,
  };
}
