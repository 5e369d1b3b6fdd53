import { Pool, types } from 'pg';

// bigint (int8) columns hold credits: parse them as JS numbers. Safe up to 2^53 credits (9e9 USD).
types.setTypeParser(20, (value: string) => Number(value));

export function createPool(databaseUrl: string, max = 10): Pool {
  const pool = new Pool({ connectionString: databaseUrl, max });
  // An idle client's error (e.g. the server restarted) must not crash the process.
  pool.on('error', () => undefined);
  return pool;
}
