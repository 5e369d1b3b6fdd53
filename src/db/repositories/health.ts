/** The database's health check: one trivial statement that needs a working connection. */
import type { Queryable } from '../queryable';

export async function pingDatabase(db: Queryable): Promise<void> {
  await db.query('SELECT 1');
}
