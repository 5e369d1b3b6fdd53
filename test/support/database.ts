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

/** A fresh database with no schema (a test that migrates it itself, step by step). */
export async function createEmptyDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = `gw_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_DATABASE_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  await admin.end();
  const url = new URL(ADMIN_DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    async drop() {
      const client = new Client({ connectionString: ADMIN_DATABASE_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await client.end();
    },
  };
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const empty = await createEmptyDatabase();
  await migrate(empty.url);
  const pool = createPool(empty.url, 10);
  return {
    url: empty.url,
    name: empty.name,
    pool,
    async drop() {
      await pool.end().catch(() => undefined);
      await empty.drop();
    },
  };
}
