/**
 * Retention of the request log (issue 22, item 7), run by the maintenance worker: day partitions
 * are created a week ahead; request records and bodies older than their periods go by whole day
 * partitions (detached CONCURRENTLY, then dropped: no lock on the parent that would stop writes or
 * listings), and the rows of the day straddling the cutoff go in small batches, like the routing
 * decisions and the webhook delivery log (settled deliveries only: one still being retried stays).
 * Every statement runs with a short lock timeout: a busy table is retried next run.
 */
import type { Pool } from 'pg';
import { ensureRequestPartitions } from './write-request-records';

const DAY_MS = 86_400_000;
const BATCH = 5_000;

export interface RetentionPeriods {
  recordsDays: number;
  bodiesDays: number;
  routingDecisionsDays: number;
  webhookDeliveriesDays: number;
}

export interface RetentionReport {
  partitionsDropped: string[];
  recordsDeleted: number;
  bodiesDeleted: number;
  routingDecisionsDeleted: number;
  webhookDeliveriesDeleted: number;
}

/** Day partitions of `parent` that end at or before `cutoffMs`, oldest first. */
async function partitionsBefore(db: Pool, parent: string, cutoffMs: number): Promise<string[]> {
  const result = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE p.relname = $1 AND c.relname ~ '_[0-9]{8}$' ORDER BY c.relname`, [parent]);
  return result.rows.filter((row) => {
    const suffix = row.name.slice(-8);
    const dayEnd = Date.UTC(Number(suffix.slice(0, 4)), Number(suffix.slice(4, 6)) - 1, Number(suffix.slice(6, 8))) + DAY_MS;
    return dayEnd <= cutoffMs;
  }).map((row) => row.name);
}

async function dropPartition(db: Pool, parent: string, name: string): Promise<void> {
  const client = await db.connect();
  try {
    await client.query("SET lock_timeout = '5s'");
    // Not in a transaction: DETACH … CONCURRENTLY waits for running queries instead of blocking new ones.
    await client.query(`ALTER TABLE ${parent} DETACH PARTITION ${name} CONCURRENTLY`).catch(async (error: unknown) => {
      // A detach interrupted earlier is finished instead.
      if (!/pending detach/i.test((error as Error).message)) throw error;
      await client.query(`ALTER TABLE ${parent} DETACH PARTITION ${name} FINALIZE`);
    });
    await client.query(`DROP TABLE IF EXISTS ${name}`);
  } finally {
    await client.query('RESET lock_timeout').catch(() => undefined);
    client.release();
  }
}

/**
 * Deletes rows of `table` older than the cutoff (and matching `also`, a SQL condition), `BATCH` at a
 * time, each batch its own short transaction: row locks on that batch only, never a table lock.
 */
async function deleteOlder(db: Pool, table: string, keys: string, cutoffMs: number, also = 'true'): Promise<number> {
  const cutoff = new Date(cutoffMs);
  const join = keys.split(',').map((key) => `t.${key.trim()} = d.${key.trim()}`).join(' AND ');
  let total = 0;
  for (;;) {
    const result = await db.query(
      `DELETE FROM ${table} t USING (SELECT ${keys} FROM ${table} WHERE created_at < $1 AND ${also} LIMIT ${BATCH}) d WHERE ${join}`, [cutoff]);
    total += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < BATCH) return total;
  }
}

export async function applyRequestLogRetention(db: Pool, periods: RetentionPeriods, nowMs: number): Promise<RetentionReport> {
  await ensureRequestPartitions(db, nowMs - DAY_MS, nowMs + 7 * DAY_MS);
  const report: RetentionReport = { partitionsDropped: [], recordsDeleted: 0, bodiesDeleted: 0, routingDecisionsDeleted: 0, webhookDeliveriesDeleted: 0 };
  const tables = [
    { parent: 'request_records', cutoff: nowMs - periods.recordsDays * DAY_MS, counter: 'recordsDeleted' as const },
    { parent: 'request_bodies', cutoff: nowMs - Math.min(periods.bodiesDays, periods.recordsDays) * DAY_MS, counter: 'bodiesDeleted' as const },
  ];
  for (const { parent, cutoff, counter } of tables) {
    for (const name of await partitionsBefore(db, parent, cutoff)) {
      await dropPartition(db, parent, name);
      report.partitionsDropped.push(name);
    }
    report[counter] = await deleteOlder(db, parent, 'request_id, created_at', cutoff);
  }
  report.routingDecisionsDeleted = await deleteOlder(db, 'routing_decisions', 'request_id', nowMs - periods.routingDecisionsDays * DAY_MS);
  report.webhookDeliveriesDeleted = await deleteOlder(db, 'webhook_deliveries', 'id', nowMs - periods.webhookDeliveriesDays * DAY_MS, "status <> 'pending'");
  return report;
}
