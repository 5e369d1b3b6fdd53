/**
 * Writes a batch of request records (and their kept bodies) in one statement each. A request may
 * come twice: a provisional record (appended before its answer ended) and the final one (built when
 * the response closed), in either order; the final one wins, whatever arrives later is ignored, so
 * a batch retried after a crash writes nothing twice. A day with no partition yet (records from
 * before the migration's window, or a maintenance worker that has not run) gets its partitions
 * created and the batch is tried again.
 */
import type { Pool } from 'pg';
import { isMissingPartition } from '../src/db/partitions';
import { insertRequestBodies } from '../src/db/repositories/request-bodies';
import { ensureRequestLogPartitions, insertRequestRecords } from '../src/db/repositories/request-records';
import { inTransaction } from '../src/db/transaction';
import type { RequestRecord } from '../src/requests/request-record';

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
  const write = () =>
    inTransaction(db, async (client) => {
      await insertRequestRecords(client, json);
      if (records.some((record) => record.bodies)) await insertRequestBodies(client, json);
    });
  try {
    await write();
  } catch (error) {
    if (!isMissingPartition(error)) throw error;
    const times = records.map((record) => record.startedAt);
    await ensureRequestLogPartitions(db, Math.min(...times), Math.max(...times));
    await write();
  }
}
