/**
 * Usage rollups (migration 081): the hour and day sums by key and model equal the raw usage rows'
 * after the migration (an install with rows), settlement, direct inserts, updates and deletes; daily usage and key windows read them and
 * give exactly what summing the raw rows gives, rows on a window's edge (to the millisecond) included.
 */
import type { Pool } from 'pg';
import { keyWindows } from '../../../src/account/key-windows';
import { creditsToUsd } from '../../../src/account/credits-to-usd';
import { usageSeries } from '../../../src/account/usage-series';
import { settleUsageEvents } from '../../../src/billing/settle-usage-events';
import { migrate } from '../../../src/db/migrate';
import { createPool } from '../../../src/db/pool';
import { createEmptyDatabase } from '../../support/database';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { createBillingFixture, usageEvent, type BillingFixture } from '../billing/billing-fixtures';

jest.setTimeout(60_000);

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** Mid-hour, mid-day: every window's edge falls inside an hour. */
const NOW = Date.UTC(2026, 5, 15, 13, 27, 41, 250);
/** On the hour and on a day boundary. */
const ON_THE_HOUR = Date.UTC(2026, 5, 15, 0, 0, 0, 0);

const RAW_SUMS = `
  SELECT s.span, u.account_id, date_trunc(s.span, u.started_at, 'UTC') AS at, u.api_key_id, u.model,
         count(*)::bigint AS requests, sum(u.credits)::bigint AS credits,
         sum(u.prompt_tokens)::bigint AS prompt_tokens, sum(u.completion_tokens)::bigint AS completion_tokens,
         min(u.started_at) AS first_started_at
    FROM usage_rows u CROSS JOIN (VALUES ('hour'), ('day')) AS s(span)
   GROUP BY 1, 2, 3, 4, 5`;
const ROLLUPS =
  'SELECT span, account_id, at, api_key_id, model, requests, credits, prompt_tokens, completion_tokens, first_started_at FROM usage_rollups';

async function rollupMismatches(db: Pool): Promise<unknown[]> {
  const result = await db.query(`(${RAW_SUMS} EXCEPT ${ROLLUPS}) UNION ALL (${ROLLUPS} EXCEPT ${RAW_SUMS})`);
  return result.rows;
}

/** Edge times of every window at `nowMs`, one millisecond either side, and the whole hours and days around them. */
function edgeTimes(nowMs: number): number[] {
  const edges = [5 * HOUR, DAY, 7 * DAY, 30 * DAY].map((ms) => nowMs - ms);
  const startOfDay = Math.floor(nowMs / DAY) * DAY;
  const hours = [0, 1, 23, 24, 25].map((h) => Math.floor(nowMs / HOUR) * HOUR - h * HOUR);
  return [...edges, startOfDay, startOfDay - 29 * DAY, ...hours].flatMap((at) => [at - 1, at, at + 1]);
}

describe('usage rollups', () => {
  let deps: TestDependencies;
  let fixture: BillingFixture;

  beforeAll(async () => {
    deps = await createTestDependencies();
    fixture = await createBillingFixture(deps.db, deps.crypto, { keys: 3, balance: 10_000_000_000 });
    await deps.db.query('UPDATE api_keys SET rate_limit_5h = 9000, rate_limit_1d = 0, rate_limit_7d = 500000 WHERE account_id = $1', [
      fixture.accountId,
    ]);
    // Every 37 minutes over 35 days, plus the edges of both "now"s; a row in four has no key.
    const times = [
      ...Array.from({ length: (35 * 24 * 60) / 37 }, (_, i) => NOW + HOUR - i * 37 * 60_000),
      ...edgeTimes(NOW),
      ...edgeTimes(ON_THE_HOUR),
    ];
    const events = times.map((startedAt, i) => usageEvent(fixture, { startedAt, ...(i % 4 === 0 ? { apiKeyId: null } : {}) }));
    for (let start = 0; start < events.length; start += 300) await settleUsageEvents(deps.db, events.slice(start, start + 300));
  });
  afterAll(async () => {
    await deps.close();
  });

  it("holds the raw rows' sums per hour and per day, by key and model, through settlement, inserts, updates and deletes", async () => {
    const count = await deps.db.query<{ n: number }>("SELECT count(*)::int AS n FROM usage_rollups WHERE span = 'hour'");
    expect(count.rows[0]!.n).toBeGreaterThan(800);
    expect(await rollupMismatches(deps.db)).toEqual([]);

    await deps.db.query(
      `INSERT INTO usage_rows (request_id, account_id, api_key_id, model, protocol, credits, prompt_tokens, started_at)
      SELECT 'direct-' || g, $1, CASE WHEN g % 2 = 0 THEN NULL ELSE $2::bigint END, 'gpt-5', 'chat', g, g, $3::timestamptz - g * interval '11 minutes'
        FROM generate_series(1, 200) AS g`,
      [fixture.accountId, fixture.keyIds[0], new Date(NOW)],
    );
    // Moved across hours, days and month partitions; moved to another key; deleted.
    await deps.db.query("UPDATE usage_rows SET started_at = started_at - interval '40 days' WHERE request_id LIKE 'direct-1%'");
    await deps.db.query('UPDATE usage_rows SET api_key_id = $2, credits = credits + 1 WHERE request_id LIKE $1', [
      'direct-2%',
      fixture.keyIds[1],
    ]);
    await deps.db.query(
      "DELETE FROM usage_rows WHERE request_id LIKE 'direct-3%' OR (account_id = $1 AND started_at >= $2 AND started_at < $3)",
      [fixture.accountId, new Date(NOW - 20 * DAY), new Date(NOW - 19 * DAY)],
    );
    expect(await rollupMismatches(deps.db)).toEqual([]);
    const empty = await deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_rollups WHERE requests = 0');
    expect(empty.rows[0]!.n).toBe(0);
  });

  it.each([
    ['mid-hour', NOW],
    ['on the hour and day', ON_THE_HOUR],
    ['a millisecond past the hour', ON_THE_HOUR + 1],
  ])("daily usage and key windows equal the raw rows' sums at their edges (%s)", async (_label, nowMs) => {
    const db = deps.db;
    const series = await usageSeries(db, fixture.accountId, nowMs, 30);
    const startOfDay = Math.floor(nowMs / DAY) * DAY;
    const raw = async (since: number, op: '>=' | '>', keyId?: number) =>
      (
        await db.query<{ requests: number; credits: number; oldest: Date | null }>(
          `SELECT count(*)::int AS requests, COALESCE(sum(credits), 0)::bigint AS credits, min(started_at) AS oldest FROM usage_rows
          WHERE account_id = $1 AND started_at ${op} $2 AND ($3::bigint IS NULL OR api_key_id = $3)`,
          [fixture.accountId, new Date(since), keyId ?? null],
        )
      ).rows[0]!;
    for (const [span, since] of [
      ['today', startOfDay],
      ['last_7d', nowMs - 7 * DAY],
      ['last_30d', nowMs - 30 * DAY],
    ] as const) {
      const expected = await raw(since, '>=');
      expect(series.totals[span]).toEqual({
        requests: expected.requests,
        credits: Number(expected.credits),
        cost: creditsToUsd(Number(expected.credits)),
      });
    }
    const grouped = await db.query<{
      day: string;
      model: string;
      api_key_id: number | null;
      requests: number;
      credits: number;
      prompt_tokens: number;
      completion_tokens: number;
    }>(
      `SELECT to_char(date_trunc('day', started_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD') AS day, model, api_key_id,
                count(*)::int AS requests, sum(credits)::bigint AS credits, sum(prompt_tokens)::int AS prompt_tokens, sum(completion_tokens)::int AS completion_tokens
           FROM usage_rows WHERE account_id = $1 AND started_at >= $2
          GROUP BY GROUPING SETS ((1, model), (1, api_key_id)) ORDER BY 1, 2, 3`,
      [fixture.accountId, new Date(startOfDay - 29 * DAY)],
    );
    const pick = (p: { day: string; requests: number; credits: number; prompt_tokens: number; completion_tokens: number }) => [
      p.day,
      p.requests,
      Number(p.credits),
      p.prompt_tokens,
      p.completion_tokens,
    ];
    expect(series.by_model.map((p) => [p.model, ...pick(p)])).toEqual(
      grouped.rows.filter((r) => r.model !== null).map((r) => [r.model, ...pick(r)]),
    );
    expect(series.by_key.map((p) => [p.api_key_id, ...pick(p)])).toEqual(
      grouped.rows.filter((r) => r.model === null).map((r) => [r.api_key_id === null ? null : Number(r.api_key_id), ...pick(r)]),
    );

    const keys = await keyWindows(db, fixture.accountId, nowMs);
    expect(keys.map((k) => k.api_key_id)).toEqual(fixture.keyIds);
    for (const key of keys) {
      for (const [index, ms] of [5 * HOUR, DAY, 7 * DAY].entries()) {
        const expected = await raw(nowMs - ms, '>', key.api_key_id);
        const window = key.windows[index]!;
        expect(window.spent).toBe(creditsToUsd(Number(expected.credits)));
        expect(window.resets_at).toBe(expected.oldest === null ? null : new Date(expected.oldest.getTime() + ms).toISOString());
      }
    }
  });

  it('are filled by the migration from the rows an install already has', async () => {
    const empty = await createEmptyDatabase();
    const db = createPool(empty.url, 2);
    try {
      await migrate(empty.url, { through: '080_partition_usage_ledger_routing.sql' });
      await db.query("INSERT INTO accounts (id, name) VALUES (1, 'a'), (2, 'b')");
      await db.query(`INSERT INTO usage_rows (request_id, account_id, api_key_id, model, protocol, credits, prompt_tokens, completion_tokens, started_at)
        SELECT 'old-' || g, 1 + g % 2, CASE WHEN g % 5 = 0 THEN NULL ELSE g % 3 END, 'm' || g % 2, 'chat', g, g, 2 * g, now() - g * interval '37 minutes'
          FROM generate_series(1, 3000) AS g`);
      expect(await migrate(empty.url)).toContain('081_usage_rollups.sql');
      const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM usage_rollups');
      expect(count.rows[0]!.n).toBeGreaterThan(3000);
      expect(await rollupMismatches(db)).toEqual([]);
    } finally {
      await db.end();
      await empty.drop();
    }
  });
});
