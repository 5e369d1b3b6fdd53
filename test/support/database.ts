/**
 * A fresh PostgreSQL database per test file, migrated, dropped afterwards. Tests never share
 * rows, so they can run in parallel against the one local server.
 */
import { randomBytes } from 'node:crypto';
import { Client, type Pool } from 'pg';
import { migrate } from '../../src/db/migrate';
import { createPool } from '../../src/db/pool';

export const ADMIN_DATABASE_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  name: string;
  pool: Pool;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  await migrate(url.toString());
  const pool = createPool(url.toString(), 10);
  return {
    url: url.toString(),
    name,
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      const client = new Client({ connectionString: ADMIN_DATABASE_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}
