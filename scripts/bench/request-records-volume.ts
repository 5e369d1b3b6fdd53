/**
 * `npx tsx scripts/bench/request-records-volume.ts`: fills `request_records` of a fresh database with
 * `REQUEST_VOLUME_ROWS` records (default 5,000,000) spread over `REQUEST_VOLUME_DAYS` days (default 90)
 * of day partitions, plus the 7 days ahead the maintenance worker keeps (one
 * account holding a third of them, 500 others; 8 models, 4 protocols, a realistic mix of outcomes,
 * statuses and error classes), then times the listing the API runs (`listRequestRecords`): the
 * newest 50 with each single filter, for the big account and across accounts (operators). Prints
 * p50/p95 per query over `REQUEST_VOLUME_SAMPLES` runs (default 40). Keep the database with
 * `REQUEST_VOLUME_KEEP=1`; time a kept one again (no fill) with `REQUEST_VOLUME_DATABASE=<name>`.
 */
import { randomBytes } from 'node:crypto';
import { Client, type Pool } from 'pg';
import { migrate } from '../../src/db/migrate';
import { ensureTimePartitions } from '../../src/db/partitions';
import { createPool } from '../../src/db/pool';
import { listRequestRecords } from '../../src/requests/list-request-records';
import { operatorRequestsQuerySchema, type RequestsQuery } from '../../src/requests/request-query-schemas';

const ROWS = Number(process.env.REQUEST_VOLUME_ROWS ?? 5_000_000);
const SAMPLES = Number(process.env.REQUEST_VOLUME_SAMPLES ?? 40);
const ADMIN_URL = process.env.BENCH_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CHUNK = 250_000;
const DAYS = Number(process.env.REQUEST_VOLUME_DAYS ?? 90);
const DAYS_AHEAD = 7;
const DAY_MS = 86_400_000;
const REUSE = process.env.REQUEST_VOLUME_DATABASE;

const FILL = `INSERT INTO request_records (request_id, account_id, api_key_id, protocol, model, upstream_account_id, status, outcome, error_class,
    duration_ms, ttfb_ms, input_tokens, output_tokens, cost_credits, stream, created_at)
  SELECT 'req_' || lpad(to_hex(g), 24, '0'),
    CASE WHEN g % 3 = 0 THEN 1 ELSE 2 + g % 500 END,
    CASE WHEN g % 3 = 0 THEN 1 + g % 20 ELSE 100 + g % 5000 END,
    (ARRAY['chat', 'messages', 'responses', 'generate-content'])[1 + g % 4],
    (ARRAY['gpt-4.1', 'gpt-5', 'claude-sonnet-4-5', 'claude-haiku-4-5', 'gemini-2.5-pro', 'gemini-2.5-flash', 'o3', 'gpt-4.1-mini'])[1 + (g / 7) % 8],
    1 + g % 12,
    s.status, s.outcome, s.error_class,
    50 + (g * 7919) % 5000, 20 + (g * 104729) % 900, (g * 31) % 4000, (g * 17) % 1000, (g * 13) % 20000, g % 2 = 0,
    $3::timestamptz - ((g::float8 / $4) * interval '${DAYS} days')
  FROM generate_series($1::bigint, $2::bigint) AS g
  CROSS JOIN LATERAL (SELECT * FROM (VALUES
    (200, 'ok', NULL), (200, 'ok', NULL), (200, 'ok', NULL), (200, 'ok', NULL), (200, 'ok', NULL), (200, 'ok', NULL), (200, 'ok', NULL),
    (200, 'ok', NULL), (200, 'ok', NULL), (200, 'ok', NULL), (200, 'ok', NULL), (200, 'ok', NULL), (200, 'ok', NULL), (200, 'ok', NULL),
    (200, 'ok', NULL), (200, 'ok', NULL), (400, 'error', 'invalid_request'), (429, 'error', 'rate_limit'), (502, 'error', 'upstream_error'),
    (499, 'aborted', 'client_abort'), (429, 'error', 'upstream_rate_limit'), (402, 'error', 'insufficient_balance'), (503, 'error', 'no_available_account')
  ) AS v(status, outcome, error_class) OFFSET (g * 2654435761) % 23 LIMIT 1) AS s`;

/** Fills the records over `DAYS` days before `now`, with the day partitions the maintenance worker keeps (7 days ahead). */
async function fill(db: Pool, now: Date): Promise<void> {
  for (const parent of ['request_records', 'request_bodies']) {
    await ensureTimePartitions(db, parent, 'day', now.getTime() - (DAYS + 1) * DAY_MS, now.getTime() + DAYS_AHEAD * DAY_MS);
  }
  const fillStarted = Date.now();
  for (let start = 1; start <= ROWS; start += CHUNK) {
    await db.query(FILL, [start, Math.min(ROWS, start + CHUNK - 1), now, ROWS]);
    process.stdout.write(`\r${Math.min(ROWS, start + CHUNK - 1).toLocaleString()} rows`);
  }
  await db.query('ANALYZE request_records');
  console.log(`\nfilled ${ROWS.toLocaleString()} rows over ${DAYS} days in ${((Date.now() - fillStarted) / 1000).toFixed(0)} s`);
}

async function main(): Promise<void> {
  const name = REUSE ?? `gw_reqvol_${randomBytes(4).toString('hex')}`;
  const admin = new Client({ connectionString: ADMIN_URL });
  await admin.connect();
  if (!REUSE) await admin.query(`CREATE DATABASE "${name}"`);
  const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  const db = createPool(databaseUrl, 2);
  try {
    await migrate(databaseUrl);
    // A kept database: its newest record stands for "now" (the filters' times follow it).
    const now = REUSE ? (await db.query<{ at: Date }>('SELECT max(created_at) AS at FROM request_records')).rows[0]!.at : new Date();
    if (!REUSE) await fill(db, now);
    const partitions = await db.query<{ n: string }>("SELECT count(*) AS n FROM pg_inherits WHERE inhparent = 'request_records'::regclass");
    console.log(`${partitions.rows[0]!.n} partitions of request_records`);

    const cases: Array<[string, number | undefined, Record<string, string>]> = [
      ['account, no filter', 1, {}],
      ['account, status=error', 1, { status: 'error' }],
      ['account, status=4xx', 1, { status: '4xx' }],
      ['account, status=429', 1, { status: '429' }],
      ['account, error_class=upstream_error', 1, { error_class: 'upstream_error' }],
      ['account, model=o3', 1, { model: 'o3' }],
      ['account, api_key_id=7', 1, { api_key_id: '7' }],
      ['account, protocol=responses', 1, { protocol: 'responses' }],
      ['account, since 3 days ago', 1, { since: new Date(now.getTime() - 3 * 86_400_000).toISOString() }],
      ['account, until 20 days ago', 1, { until: new Date(now.getTime() - 20 * 86_400_000).toISOString() }],
      ['small account, status=error', 77, { status: 'error' }],
      ['small account, error_class=upstream_error', 77, { error_class: 'upstream_error' }],
      ['operator, no filter', undefined, {}],
      ['operator, status=error', undefined, { status: 'error' }],
      ['operator, model=o3', undefined, { model: 'o3' }],
      ['operator, account_id=77', undefined, { account_id: '77' }],
    ];
    console.log('| query (newest 50) | p50 ms | p95 ms |\n|---|---|---|');
    for (const [label, accountId, params] of cases) {
      const query: RequestsQuery = operatorRequestsQuerySchema.parse({ limit: '50', ...params });
      const times: number[] = [];
      for (let sample = 0; sample < SAMPLES; sample += 1) {
        const started = process.hrtime.bigint();
        const rows = await listRequestRecords(db, accountId, query);
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
        if (rows.length === 0) throw new Error(`${label}: no rows`);
      }
      times.sort((a, b) => a - b);
      const at = (p: number) => times[Math.min(times.length - 1, Math.floor(times.length * p))]!.toFixed(1);
      console.log(`| ${label} | ${at(0.5)} | ${at(0.95)} |`);
    }
  } finally {
    await db.end();
    if (process.env.REQUEST_VOLUME_KEEP !== '1' && !REUSE)
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => undefined);
    else console.log(`kept database ${name}`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error('request volume benchmark failed:', error);
  process.exit(1);
});
