/**
 * `npx tsx scripts/bench/volume.ts`: PostgreSQL at volume. Fills a fresh database with `VOLUME_ROWS`
 * usage rows (default 10,000,000) and as many request records, over 90 days, for 1,000 accounts (account
 * 1 holding 10 %; 20 keys for it, 3 for each other), then times what the console and the API run on
 * them, with the functions they call: daily usage and key windows (from the usage rollups), the usage
 * listing with each filter, the request listing, the CSV export of a month (streamed: time, rows,
 * memory), retention of a month (dropping its partitions and its rollups), and what the rollup trigger
 * adds to a settlement-sized insert. Prints p50/p95 per query over `VOLUME_SAMPLES` runs (default 30).
 * The fill bulk-loads (indexes built after the rows, rollups summed once), so 10 M rows take minutes.
 * `VOLUME_UPGRADE_ROWS=n` instead times migrations 080 and 081 (partitions, rollups) upgrading an
 * install holding n usage rows and n ledger entries. Keep the database with `VOLUME_KEEP=1`.
 */
import { randomBytes } from 'node:crypto';
import { Client, type Pool, type PoolClient } from 'pg';
import { keyWindows } from '../../src/account/key-windows';
import { listUsageRows, type UsageFilters } from '../../src/account/list-usage-rows';
import { writeUsageCsv } from '../../src/account/usage-csv';
import { usageSeries } from '../../src/account/usage-series';
import { migrate } from '../../src/db/migrate';
import { detachPartitionsBefore, dropPartitionsBefore, ensureTimePartitions, partitionsBefore } from '../../src/db/partitions';
import { dropUsageRollupsBefore, ensureUsageRollupPartitions } from '../../src/db/repositories/usage-rows';
import { createPool } from '../../src/db/pool';
import { listRequestRecords } from '../../src/requests/list-request-records';
import { requestsQuerySchema } from '../../src/requests/request-query-schemas';

const ROWS = Number(process.env.VOLUME_ROWS ?? 10_000_000);
const SAMPLES = Number(process.env.VOLUME_SAMPLES ?? 30);
const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CHUNK = 250_000;
const DAYS = 90;
const DAY_MS = 86_400_000;
const BIG = 1;

// Row g (1..$2 of $4): account 1 every tenth row, else one of the 999 others; its keys; newer as g grows.
const ROW_SHAPE = `
  CASE WHEN g % 10 = 0 THEN 1 ELSE 2 + g % 999 END AS account_id,
  CASE WHEN g % 10 = 0 THEN 1 + (g / 10) % 20 ELSE 21 + (g % 999) * 3 + g % 3 END AS api_key_id,
  'req_' || lpad(to_hex(g), 24, '0') AS request_id,
  (ARRAY['gpt-4.1', 'gpt-5', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'gemini-2.5-pro', 'gemini-2.5-flash', 'o3', 'gpt-4.1-mini'])[1 + (g / 7) % 8] AS model,
  (ARRAY['chat', 'messages', 'responses', 'generate-content'])[1 + g % 4] AS protocol,
  $3::timestamptz - (($4 - g)::float8 / $4) * interval '${DAYS} days' AS at`;

const FILL_USAGE = `
WITH rows AS (SELECT g, ${ROW_SHAPE} FROM generate_series($1::bigint, $2::bigint) AS g), claims AS (
  INSERT INTO usage_request_ids (request_id) SELECT request_id FROM rows
)
INSERT INTO usage_rows (request_id, account_id, api_key_id, model, protocol, upstream_account_id, prompt_tokens, completion_tokens,
  cache_read_tokens, reasoning_tokens, credits, stream, status, started_at, created_at)
SELECT request_id, account_id, api_key_id, model, protocol, 1 + g % 12, (g * 31) % 4000, (g * 17) % 1000, (g * 7) % 500, (g * 3) % 200,
  1 + (g * 13) % 20000, g % 2 = 0, CASE WHEN g % 50 = 0 THEN 'aborted' ELSE 'ok' END, at, at + interval '2 seconds'
FROM rows ORDER BY g`;

const FILL_RECORDS = `
INSERT INTO request_records (request_id, account_id, api_key_id, protocol, model, upstream_account_id, status, outcome, error_class,
  duration_ms, ttfb_ms, input_tokens, output_tokens, cost_credits, stream, created_at)
SELECT request_id, account_id, api_key_id, protocol, model, 1 + g % 12,
  CASE WHEN g % 23 = 0 THEN 502 WHEN g % 29 = 0 THEN 429 ELSE 200 END,
  CASE WHEN g % 23 = 0 OR g % 29 = 0 THEN 'error' ELSE 'ok' END,
  CASE WHEN g % 23 = 0 THEN 'upstream_error' WHEN g % 29 = 0 THEN 'rate_limit' END,
  50 + (g * 7919) % 5000, 20 + (g * 104729) % 900, (g * 31) % 4000, (g * 17) % 1000, 1 + (g * 13) % 20000, g % 2 = 0, at
FROM (SELECT g, ${ROW_SHAPE} FROM generate_series($1::bigint, $2::bigint) AS g) r`;

async function createDatabase(admin: Client, prefix: string): Promise<{ name: string; url: string }> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await admin.query(`CREATE DATABASE "${name}"`);
  return { name, url: Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString() };
}

/** 1,000 accounts; keys 1–20 are account 1's, 21 + (a − 2) × 3 + j (j < 3) account a's. */
async function fillAccounts(db: Pool): Promise<void> {
  await db.query("INSERT INTO routing_groups (name) VALUES ('default')");
  await db.query("INSERT INTO accounts (id, name, tier) SELECT a, 'account ' || a, 'pro' FROM generate_series(1, 1000) AS a");
  await db.query(`INSERT INTO api_keys (id, account_id, group_id, name, secret_hmac, secret_encrypted, secret_last4, rate_limit_5h, rate_limit_1d, rate_limit_7d)
    SELECT k, CASE WHEN k <= 20 THEN 1 ELSE 2 + (k - 21) / 3 END, 1, 'key ' || k, 'h' || k, 'e', '0000', 5000000, 20000000, 100000000
    FROM generate_series(1, 20 + 999 * 3) AS k`);
  await db.query("SELECT setval('accounts_id_seq', 1000), setval('api_keys_id_seq', 20 + 999 * 3)");
}

// The rollups of every usage row (as migration 081 fills them for an existing install).
const FILL_ROLLUPS = `
INSERT INTO usage_rollups (span, account_id, at, api_key_id, model, requests, credits, prompt_tokens, completion_tokens, first_started_at)
SELECT s.span, u.account_id, date_trunc(s.span, u.started_at, 'UTC'), u.api_key_id, u.model,
       count(*), sum(u.credits), sum(u.prompt_tokens), sum(u.completion_tokens), min(u.started_at)
  FROM usage_rows u CROSS JOIN (VALUES ('hour'), ('day')) AS s(span)
 GROUP BY 1, 2, 3, 4, 5`;

/**
 * The secondary indexes of `tables` (those no constraint owns), dropped; returns their definitions
 * (pg_get_indexdef: exactly as the migrations created them) by table, to create again after the fill.
 */
async function dropIndexes(db: Pool, tables: readonly string[]): Promise<Map<string, string[]>> {
  const found = await db.query<{ name: string; tab: string; def: string }>(
    `SELECT i.relname AS name, x.indrelid::regclass::text AS tab, pg_get_indexdef(i.oid) AS def FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid
      WHERE x.indrelid = ANY($1::regclass[]) AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)`,
    [tables],
  );
  const defs = new Map<string, string[]>(tables.map((table) => [table, []]));
  for (const index of found.rows) {
    await db.query(`DROP INDEX ${index.name}`);
    // A partitioned table's index is shown `ON ONLY parent` (the parent alone); built again on every partition.
    defs.get(index.tab)?.push(index.def.replace(' ON ONLY ', ' ON '));
  }
  return defs;
}

/** `work` on a connection of its own, with the memory bulk sorts and index builds want. */
async function withBulkClient(db: Pool, work: (client: PoolClient) => Promise<void>): Promise<void> {
  const client = await db.connect();
  try {
    await client.query("SET work_mem = '256MB'");
    await client.query("SET maintenance_work_mem = '512MB'");
    await work(client);
  } finally {
    client.release(true); // not back to the pool with these settings
  }
}

async function step(label: string, run: () => Promise<unknown>): Promise<void> {
  const started = Date.now();
  await run();
  console.log(`${label}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
}

/**
 * Two lanes on two connections (usage rows, request records), each: rows in chunks of `CHUNK`
 * (INSERT … SELECT FROM generate_series) into tables without their secondary indexes, usage rows
 * without their triggers (rollups, foreign key); then (usage) the rollups in one GROUP BY; then every index built once (far
 * faster than maintaining them row by row); then statistics.
 */
async function fill(db: Pool, now: Date): Promise<void> {
  const from = now.getTime() - (DAYS + 1) * DAY_MS;
  await ensureTimePartitions(db, 'usage_rows', 'month', from, now.getTime());
  await ensureUsageRollupPartitions(db, from, now.getTime());
  await db.query(
    "SELECT request_log_ensure_partitions(($1::timestamptz AT TIME ZONE 'UTC')::date - $2::int, ($1::timestamptz AT TIME ZONE 'UTC')::date)",
    [now, DAYS + 1],
  );
  const started = Date.now();
  const indexes = await dropIndexes(db, ['usage_rows', 'usage_rollups', 'request_records']);
  // The rollup triggers and the foreign key's (a lookup per row; the rows' accounts exist): rollups filled after.
  await db.query('ALTER TABLE usage_rows DISABLE TRIGGER ALL');
  const chunks = async (client: PoolClient, sql: string, label: string) => {
    for (let start = 1; start <= ROWS; start += CHUNK) {
      const end = Math.min(ROWS, start + CHUNK - 1);
      await client.query(sql, [start, end, now, ROWS]);
      if (end % (CHUNK * 4) === 0 || end === ROWS)
        console.log(`${label}: ${end.toLocaleString()} after ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  };
  const build = async (client: PoolClient, tables: readonly string[]) => {
    for (const table of tables) for (const def of indexes.get(table) ?? []) await client.query(def);
    // The rollups vacuumed too (as autovacuum does after a bulk insert): their reads are index-only scans.
    for (const table of tables) await client.query(`${table === 'usage_rollups' ? 'VACUUM ' : ''}ANALYZE ${table}`);
  };
  await Promise.all([
    withBulkClient(db, async (client) => {
      await chunks(client, FILL_USAGE, 'usage rows');
      await client.query('ALTER TABLE usage_rows ENABLE TRIGGER ALL');
      await step('usage rollups', () => client.query(FILL_ROLLUPS));
      await step('usage indexes and statistics', () => build(client, ['usage_rows', 'usage_rollups', 'usage_request_ids']));
    }),
    withBulkClient(db, async (client) => {
      await chunks(client, FILL_RECORDS, 'request records');
      await step('request record indexes and statistics', () => build(client, ['request_records']));
    }),
  ]);
  const rollups = await db.query<{ n: string; big: string }>(
    'SELECT count(*) AS n, count(*) FILTER (WHERE account_id = $1) AS big FROM usage_rollups',
    [BIG],
  );
  console.log(
    `filled in ${((Date.now() - started) / 1000).toFixed(0)} s; ${Number(rollups.rows[0]?.n).toLocaleString()} rollup rows (account 1: ${Number(rollups.rows[0]?.big).toLocaleString()})`,
  );
}

async function time(label: string, samples: number, run: () => Promise<unknown>): Promise<void> {
  const times: number[] = [];
  for (let sample = 0; sample < samples; sample += 1) {
    const started = process.hrtime.bigint();
    await run();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor(times.length * p))]!.toFixed(1);
  console.log(`| ${label} | ${at(0.5)} | ${at(0.95)} |`);
}

async function nonEmpty<T>(label: string, read: () => Promise<T[]>): Promise<T[]> {
  const rows = await read();
  if (rows.length === 0) throw new Error(`${label}: no rows`);
  return rows;
}

async function timeQueries(db: Pool, now: Date): Promise<void> {
  const nowMs = now.getTime();
  const small = 77;
  const monthAgo = new Date(nowMs - 30 * DAY_MS);
  const sampleRequest = (
    await db.query<{ request_id: string }>('SELECT request_id FROM usage_rows WHERE account_id = $1 AND started_at < $2 LIMIT 1', [
      BIG,
      monthAgo,
    ])
  ).rows[0]!.request_id;
  const listings: Array<[string, Partial<UsageFilters>]> = [
    ['no filter', {}],
    ['api_key_id', { apiKeyId: 7 }],
    ['request_id', { requestId: sampleRequest }],
    ['model=o3', { model: 'o3' }],
    ['protocol=responses', { protocol: 'responses' }],
    ['status=aborted', { status: 'aborted' }],
    ['from/to: a week a month ago', { from: new Date(nowMs - 37 * DAY_MS), to: new Date(nowMs - 30 * DAY_MS) }],
    ['model + api_key_id', { model: 'gpt-5', apiKeyId: 3 }],
  ];
  console.log('| query | p50 ms | p95 ms |\n|---|---|---|');
  await time('daily usage (30 days), account 1', SAMPLES, () => usageSeries(db, BIG, nowMs, 30));
  await time('daily usage (30 days), small account', SAMPLES, () => usageSeries(db, small, nowMs, 30));
  await time('key windows, account 1 (20 keys)', SAMPLES, () => keyWindows(db, BIG, nowMs));
  await time('key windows, small account', SAMPLES, () => keyWindows(db, small, nowMs));
  for (const [label, filters] of listings) {
    await time(`usage listing (50), account 1, ${label}`, SAMPLES, () =>
      nonEmpty(label, () => listUsageRows(db, { accountId: BIG, limit: 50, ...filters })),
    );
  }
  const page = await listUsageRows(db, { accountId: BIG, limit: 50, model: 'o3' });
  await time('usage listing (50), account 1, model=o3, second page', SAMPLES, () =>
    nonEmpty('page 2', () => listUsageRows(db, { accountId: BIG, limit: 50, model: 'o3', beforeId: page[49]!.id })),
  );
  await time('usage listing (50), small account, no filter', SAMPLES, () =>
    nonEmpty('small', () => listUsageRows(db, { accountId: small, limit: 50 })),
  );
  for (const [label, params] of [
    ['no filter', {}],
    ['status=error', { status: 'error' }],
    ['model=o3', { model: 'o3' }],
  ] as const) {
    const query = requestsQuerySchema.parse({ limit: '50', ...params });
    await time(`request listing (50), account 1, ${label}`, SAMPLES, () => nonEmpty(label, () => listRequestRecords(db, BIG, query)));
  }
}

async function timeExport(db: Pool, now: Date): Promise<void> {
  const month = { accountId: BIG, from: new Date(now.getTime() - 60 * DAY_MS), to: new Date(now.getTime() - 30 * DAY_MS) };
  const runs = Math.max(3, Math.min(SAMPLES, 10));
  let rows = 0;
  let bytes = 0;
  let firstChunkMs = 0;
  let peakRss = 0;
  const baseRss = process.memoryUsage().rss;
  console.log(`\nCSV export of a month (account 1), ${runs} runs:`);
  await time('CSV export of a month, streamed (whole export)', runs, async () => {
    const started = Date.now();
    let writes = 0;
    bytes = 0;
    rows = await writeUsageCsv(db, month, async (chunk) => {
      writes += 1;
      // The first page of rows (the header is the first write).
      if (writes === 2) firstChunkMs = Math.max(firstChunkMs, Date.now() - started);
      bytes += chunk.length;
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
    });
  });
  console.log(
    `${rows.toLocaleString()} rows, ${(bytes / 1e6).toFixed(1)} MB of CSV; first page written after at most ${firstChunkMs} ms; RSS ${(baseRss / 1e6).toFixed(0)} MB before, ${(peakRss / 1e6).toFixed(0)} MB at most during`,
  );
}

async function timeRetention(db: Pool, now: Date): Promise<void> {
  // The oldest whole month of usage rows (with the days before it), and the 30 oldest days of request records.
  const oldest = new Date(now.getTime() - DAYS * DAY_MS);
  const usageCutoff = Date.UTC(oldest.getUTCFullYear(), oldest.getUTCMonth() + 2, 1);
  const recordsCutoff = now.getTime() - (DAYS - 30) * DAY_MS;
  // Two phases, timed apart: the partitions detached (their rows gone from every query: what a
  // reader sees of retention), then their files freed (dropPartitionsBefore finds the detached ones;
  // the cost is the filesystem's). Usage: its partitions and its rollups' before the same cutoff.
  const detach = {
    usage_rows: async () => [
      ...(await detachPartitionsBefore(db, 'usage_rows', usageCutoff)),
      ...(await detachPartitionsBefore(db, 'usage_rollups', usageCutoff)),
    ],
    request_records: () => detachPartitionsBefore(db, 'request_records', recordsCutoff),
  };
  const free = {
    usage_rows: async () => {
      await dropPartitionsBefore(db, 'usage_rows', usageCutoff);
      await dropUsageRollupsBefore(db, usageCutoff);
    },
    request_records: async () => {
      await dropPartitionsBefore(db, 'request_records', recordsCutoff);
    },
  };
  for (const [parent, cutoff] of [
    ['usage_rows', usageCutoff],
    ['request_records', recordsCutoff],
  ] as const) {
    const count = await db.query<{ n: string; bytes: string }>(
      `SELECT count(*) AS n, (SELECT COALESCE(sum(pg_total_relation_size(c.oid)), 0) FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_class p ON p.oid = i.inhparent
          WHERE p.relname = $2 AND c.relname = ANY($3::text[])) AS bytes
         FROM ${parent} WHERE ${parent === 'usage_rows' ? 'started_at' : 'created_at'} < $1`,
      [new Date(cutoff), parent, await partitionsBefore(db, parent, cutoff)],
    );
    const started = process.hrtime.bigint();
    const detached = await detach[parent]();
    const detachMs = Number(process.hrtime.bigint() - started) / 1e6;
    await free[parent]();
    const totalMs = Number(process.hrtime.bigint() - started) / 1e6;
    console.log(
      `retention of ${parent} before ${new Date(cutoff).toISOString().slice(0, 10)}: ${detached.length} partitions (${Number(count.rows[0]?.n).toLocaleString()} rows, ${(Number(count.rows[0]?.bytes) / 1e9).toFixed(2)} GB of ${parent}): rows gone (detached) in ${detachMs.toFixed(0)} ms, files freed by ${totalMs.toFixed(0)} ms`,
    );
  }
}

/**
 * What the rollup trigger adds to a settlement: batches of 100 usage rows now (account 1 and 99
 * others, as a billing batch inserts them: one statement), with the trigger, then without it.
 */
async function timeRollupTrigger(db: Pool, now: Date): Promise<void> {
  let batch = 0;
  const insert = () => {
    batch += 1;
    return db.query(
      `INSERT INTO usage_rows (request_id, account_id, api_key_id, model, protocol, credits, prompt_tokens, completion_tokens, started_at)
      SELECT 'bench-' || $1::int || '-' || g, CASE WHEN g = 0 THEN 1 ELSE 2 + (g * 7 + $1::int) % 999 END,
             CASE WHEN g = 0 THEN 1 ELSE 21 + ((g * 7 + $1::int) % 999) * 3 END, 'gpt-5', 'chat', 100, 1000, 100, $2
        FROM generate_series(0, 99) AS g`,
      [batch, now],
    );
  };
  console.log('\n| settlement-sized insert (100 rows) | p50 ms | p95 ms |\n|---|---|---|');
  await time('with the rollup trigger', SAMPLES, insert);
  await db.query('ALTER TABLE usage_rows DISABLE TRIGGER usage_rollups_insert');
  await time('without it', SAMPLES, insert);
  await db.query('ALTER TABLE usage_rows ENABLE TRIGGER usage_rollups_insert');
}

/** Migrations 080 and 081 upgrading an install with `rows` usage rows and as many ledger entries. */
async function timeUpgrade(admin: Client, rows: number): Promise<string> {
  const { name, url } = await createDatabase(admin, 'gw_upgrade');
  await migrate(url, { through: '070_alerts_webhooks.sql' });
  const db = createPool(url, 2);
  try {
    await db.query("INSERT INTO accounts (id, name) SELECT a, 'a' FROM generate_series(1, 1000) AS a");
    for (let start = 1; start <= rows; start += CHUNK) {
      const end = Math.min(rows, start + CHUNK - 1);
      await db.query(
        `INSERT INTO usage_rows (request_id, account_id, api_key_id, model, protocol, credits, started_at)
        SELECT 'req_' || g, 1 + g % 1000, g % 3000, 'gpt-5', 'chat', 1 + g % 100, now() - (g::float8 / $3) * interval '90 days'
        FROM generate_series($1::bigint, $2::bigint) AS g`,
        [start, end, rows],
      );
      await db.query(
        `INSERT INTO ledger_entries (account_id, kind, amount_credits, balance_after, reference, created_at)
        SELECT 1 + g % 1000, 'charge', -(1 + g % 100), 0, 'req_' || g, now() - (g::float8 / $3) * interval '90 days'
        FROM generate_series($1::bigint, $2::bigint) AS g`,
        [start, end, rows],
      );
    }
    const started = Date.now();
    await migrate(url);
    const seconds = (Date.now() - started) / 1000;
    const check = await db.query<{ usage: string; ledger: string }>(
      'SELECT (SELECT count(*) FROM usage_rows) AS usage, (SELECT count(*) FROM ledger_entries) AS ledger',
    );
    console.log(
      `migrations 080 and 081 on ${rows.toLocaleString()} usage rows and ${rows.toLocaleString()} ledger entries: ${seconds.toFixed(1)} s (after: ${check.rows[0]?.usage} and ${check.rows[0]?.ledger})`,
    );
  } finally {
    await db.end();
  }
  return name;
}

async function main(): Promise<void> {
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  let name = '';
  let db: Pool | undefined;
  try {
    if (process.env.VOLUME_UPGRADE_ROWS) {
      name = await timeUpgrade(admin, Number(process.env.VOLUME_UPGRADE_ROWS));
      return;
    }
    const created = await createDatabase(admin, 'gw_volume');
    name = created.name;
    await migrate(created.url);
    db = createPool(created.url, 2);
    const now = new Date();
    await fillAccounts(db);
    await fill(db, now);
    await timeQueries(db, now);
    await timeExport(db, now);
    await timeRetention(db, now);
    await timeRollupTrigger(db, now);
  } finally {
    await db?.end();
    if (process.env.VOLUME_KEEP !== '1' && name) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    else if (name) console.log(`kept database ${name}`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error('volume benchmark failed:', error);
  process.exit(1);
});
