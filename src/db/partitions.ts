/**
 * Time partitions (PostgreSQL declarative range partitioning), shared by every partitioned table:
 * partitions named `<parent>_YYYYMMDD` (a UTC day) or `<parent>_YYYYMM` (a UTC month) created ahead,
 * and retention by whole partitions (detached CONCURRENTLY, then dropped: no lock on the parent that
 * would stop writes or listings) plus small batches for the rows straddling a cutoff.
 */
import type { Pool } from 'pg';

const DAY_MS = 86_400_000;

export type PartitionUnit = 'day' | 'month';

/** Creates the partitions of `parent` covering [fromMs, toMs] (migration 080's `ensure_time_partitions`). */
export async function ensureTimePartitions(db: Pool, parent: string, unit: PartitionUnit, fromMs: number, toMs: number): Promise<void> {
  await db.query('SELECT ensure_time_partitions($1, $2, $3, $4)', [parent, unit, new Date(fromMs), new Date(toMs)]);
}

/** When the partition named `name` ends (unix ms), from its `_YYYYMMDD` or `_YYYYMM` suffix. */
function partitionEndMs(name: string): number | undefined {
  const match = /_(\d{4})(\d{2})(\d{2})?$/.exec(name);
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2]) - 1, match[3]];
  return day === undefined ? Date.UTC(year, month + 1, 1) : Date.UTC(year, month, Number(day)) + DAY_MS;
}

/** Time partitions of `parent` that end at or before `cutoffMs`, oldest first. */
export async function partitionsBefore(db: Pool, parent: string, cutoffMs: number): Promise<string[]> {
  const result = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
      WHERE p.relname = $1 AND c.relname ~ '_([0-9]{6}|[0-9]{8})$' ORDER BY c.relname`,
    [parent],
  );
  return result.rows
    .filter((row) => {
      const end = partitionEndMs(row.name.slice(parent.length));
      return end !== undefined && end <= cutoffMs;
    })
    .map((row) => row.name);
}

/** An insert refused because no partition covers its row (the day's was not created yet). */
export function isMissingPartition(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '23514' && /no partition/i.test((error as Error).message);
}

/**
 * Takes a time partition out of `parent`: from then on its rows are gone from every query. Metadata
 * only (milliseconds whatever its size); the table stays until `dropDetachedPartitions`.
 */
export async function detachPartition(db: Pool, parent: string, name: string): Promise<void> {
  const client = await db.connect();
  try {
    await client.query("SET lock_timeout = '5s'");
    // Not in a transaction: DETACH … CONCURRENTLY waits for running queries instead of blocking new ones.
    await client.query(`ALTER TABLE ${parent} DETACH PARTITION ${name} CONCURRENTLY`).catch(async (error: unknown) => {
      const message = (error as Error).message;
      // A detach interrupted earlier is finished instead.
      if (/pending detach/i.test(message)) return client.query(`ALTER TABLE ${parent} DETACH PARTITION ${name} FINALIZE`);
      // A parent with a default partition (usage rows, ledger entries) cannot: a plain detach takes
      // its lock for an instant, and gives up after a second rather than hold writers waiting.
      if (!/default partition exists/i.test(message)) throw error;
      await client.query("SET lock_timeout = '1s'");
      return client.query(`ALTER TABLE ${parent} DETACH PARTITION ${name}`);
    });
  } finally {
    await client.query('RESET lock_timeout').catch(() => undefined);
    client.release();
  }
}

/**
 * Drops detached partitions: their files are freed. What this costs is the filesystem's (unlinking
 * the files; with online discard, about 0.7 s per GB), and it locks nothing anyone else uses.
 */
export async function dropDetachedPartitions(db: Pool, names: readonly string[]): Promise<void> {
  for (const name of names) await db.query(`DROP TABLE IF EXISTS ${name}`);
}

/** Detaches every time partition of `parent` that ends at or before `cutoffMs` (oldest first); returns their names. */
export async function detachPartitionsBefore(db: Pool, parent: string, cutoffMs: number): Promise<string[]> {
  const names = await partitionsBefore(db, parent, cutoffMs);
  for (const name of names) await detachPartition(db, parent, name);
  return names;
}

/** Tables named as time partitions of `parent` but detached (a retention run stopped between its detach and its drop), ending at or before `cutoffMs`. */
async function detachedBefore(db: Pool, parent: string, cutoffMs: number): Promise<string[]> {
  const result = await db.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c
      WHERE c.relkind = 'r' AND c.relname ~ ('^' || $1 || '_([0-9]{6}|[0-9]{8})$')
        AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.oid)`,
    [parent],
  );
  return result.rows.map((row) => row.name).filter((name) => (partitionEndMs(name.slice(parent.length)) ?? Infinity) <= cutoffMs);
}

/**
 * Drops every time partition of `parent` that ends at or before `cutoffMs`: all detached first (their
 * rows are then gone), then their files freed, with any left detached by an interrupted run; returns
 * the names of the partitions it detached.
 */
export async function dropPartitionsBefore(db: Pool, parent: string, cutoffMs: number): Promise<string[]> {
  const names = await detachPartitionsBefore(db, parent, cutoffMs);
  await dropDetachedPartitions(db, await detachedBefore(db, parent, cutoffMs));
  return names;
}

const BATCH = 5_000;

/**
 * Deletes rows of `table` older than the cutoff (and matching `also`, a SQL condition), `BATCH` at a
 * time, each batch its own short transaction: row locks on that batch only, never a table lock.
 */
export async function deleteOlder(db: Pool, table: string, keys: string, cutoffMs: number, also = 'true'): Promise<number> {
  const cutoff = new Date(cutoffMs);
  const join = keys
    .split(',')
    .map((key) => `t.${key.trim()} = d.${key.trim()}`)
    .join(' AND ');
  let total = 0;
  for (;;) {
    const result = await db.query(
      `DELETE FROM ${table} t USING (SELECT ${keys} FROM ${table} WHERE created_at < $1 AND ${also} LIMIT ${BATCH}) d WHERE ${join}`,
      [cutoff],
    );
    total += result.rowCount ?? 0;
    if ((result.rowCount ?? 0) < BATCH) return total;
  }
}
