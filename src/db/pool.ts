import { Pool, types } from 'pg';

// bigint (int8) columns hold credits: parse them as JS numbers. Safe up to 2^53 credits (9e9 USD).
types.setTypeParser(20, (value: string) => Number(value));

export function createPool(databaseUrl: string, max = 10): Pool {
  const pool = new Pool({ connectionString: databaseUrl, max });
  // An idle client's error (e.g. the server restarted) must not crash the process.
  pool.on('error', () => undefined);
  // Nor may a checked-out client's (`db.connect()`, as in inTransaction): PostgreSQL stopping sends
  // ECONNRESET after the FATAL that failed the running query, when the client has no query left to
  // fail and pg-pool's idle listener is detached, so the `error` event had no listener and killed the
  // process (the billing worker, leaving every usage event of the outage pending with no reader).
  // The failure still reaches the caller through its query, and pg-pool discards the client on release.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}
