/**
 * A pooled client that loses its connection while checked out (PostgreSQL restarted or stopped, the
 * backend terminated) between queries: pg emits `error` on it, which used to have no listener and
 * killed the process (the billing worker died at every PostgreSQL restart under load). The error
 * must surface only through the client's next query, and the pool must carry on with new clients.
 */
import { Client } from 'pg';
import { createPool } from '../../../src/db/pool';
import { ADMIN_DATABASE_URL } from '../../support/database';

jest.setTimeout(30_000);

describe('createPool: a checked-out client whose connection dies', () => {
  it('does not crash the process; its next query fails, and the pool serves new clients', async () => {
    const pool = createPool(ADMIN_DATABASE_URL, 2);
    const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
    await admin.connect();
    try {
      const client = await pool.connect();
      const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const lost = new Promise<void>((resolve) => client.once('end', () => resolve()));
      // The server ends the backend while no query is running on it: pg can only report it as an `error` event.
      await admin.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      await lost;
      await expect(client.query('SELECT 1')).rejects.toThrow();
      client.release(true);
      const again = await pool.query<{ one: number }>('SELECT 1 AS one');
      expect(again.rows[0]!.one).toBe(1);
    } finally {
      await admin.end();
      await pool.end();
    }
  });
});
