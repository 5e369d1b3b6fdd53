import { Client } from 'pg';
import { migrate } from '../../src/db/migrate';
import { createTestDatabase, type TestDatabase } from '../support/database';

describe('migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('creates every table and records each migration once', async () => {
    const tables = await db.pool.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY table_name",
    );
    expect(tables.rows.map((r) => r.table_name)).toEqual(
      expect.arrayContaining([
        'accounts',
        'api_keys',
        'console_sessions',
        'console_users',
        'ledger_entries',
        'routing_groups',
        'schema_migrations',
        'stored_responses',
        'task_events',
        'tasks',
        'upstream_accounts',
        'usage_rows',
      ]),
    );
    const applied = await db.pool.query('SELECT name FROM schema_migrations');
    expect(applied.rowCount).toBeGreaterThan(0);
  });

  it('applies nothing the second time', async () => {
    expect(await migrate(db.url)).toEqual([]);
  });

  it('keeps money in bigint columns', async () => {
    const client = new Client({ connectionString: db.url });
    await client.connect();
    const columns = await client.query<{ column_name: string; table_name: string; data_type: string }>(
      "SELECT table_name, column_name, data_type FROM information_schema.columns WHERE column_name LIKE '%credits%' OR column_name LIKE 'rate_limit_%' OR column_name = 'balance_after'",
    );
    await client.end();
    expect(columns.rows.length).toBeGreaterThan(5);
    for (const column of columns.rows)
      expect([column.table_name, column.column_name, column.data_type]).toEqual([column.table_name, column.column_name, 'bigint']);
  });
});
