/**
 * Runs `work` in one transaction on a pooled client: COMMIT on success, ROLLBACK on failure. A client
 * whose ROLLBACK fails is unusable and is destroyed rather than returned to the pool.
 */
import type { Pool, PoolClient } from 'pg';

export async function inTransaction<T>(db: Pool, work: (client: PoolClient) => Promise<T>, options: { begin?: string } = {}): Promise<T> {
  const client = await db.connect();
  let broken = false;
  try {
    await client.query(options.begin ?? 'BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}
