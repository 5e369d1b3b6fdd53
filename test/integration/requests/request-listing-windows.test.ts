/**
 * The request listing reads the time line backwards in slices (the last day, the week, the month,
 * the rest) so that each statement plans over a few day partitions, not 90: paging through any
 * filter with the cursor must give exactly what one unbounded statement gives, newest first, ties
 * on the time broken by the request id.
 */
import type { RequestRecord } from '../../../src/requests/request-record';
import { encodeRequestCursor, listRequestRecords } from '../../../src/requests/list-request-records';
import { operatorRequestsQuerySchema } from '../../../src/requests/request-query-schemas';
import { writeRequestRecords } from '../../../workers/write-request-records';
import { createTestDatabase, type TestDatabase } from '../../support/database';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NOW = Date.now();
/** Ages on both sides of every slice's edge, and ahead of now (a fast clock). */
const AGES = [
  -HOUR,
  0,
  5 * 60_000,
  2 * HOUR,
  20 * HOUR,
  DAY - 60_000,
  DAY + 60_000,
  2 * DAY,
  3 * DAY,
  7 * DAY - 60_000,
  7 * DAY + 60_000,
  10 * DAY,
  31 * DAY - 60_000,
  31 * DAY + 60_000,
  45 * DAY,
  80 * DAY,
];

function records(): RequestRecord[] {
  const made: RequestRecord[] = [];
  for (let i = 0; i < 120; i += 1) {
    // Every third record shares the previous one's time: the request id breaks the tie.
    const age = AGES[Math.floor(i / 3) % AGES.length]! + (i % 3 === 2 ? i - 1 : i);
    const error = i % 4 === 0;
    made.push({
      requestId: `req_${i.toString(16).padStart(6, '0')}`,
      accountId: 1 + (i % 3),
      apiKeyId: 10 + (i % 2),
      protocol: 'chat',
      model: i % 5 === 0 ? 'rare' : 'common',
      upstreamAccountId: null,
      status: error ? 502 : 200,
      outcome: error ? 'error' : 'ok',
      errorClass: error ? 'upstream_error' : null,
      durationMs: 5,
      ttfbMs: 4,
      inputTokens: 1,
      outputTokens: 2,
      costCredits: 3,
      stream: false,
      replayed: false,
      warnings: [],
      startedAt: NOW - age,
    });
  }
  return made;
}

const iso = (ms: number) => new Date(ms).toISOString();

const CASES: Array<{ label: string; accountId?: number; params: Record<string, string>; where: string }> = [
  { label: 'every account', params: {}, where: 'TRUE' },
  { label: 'one account', accountId: 1, params: {}, where: 'account_id = 1' },
  { label: 'errors of one account', accountId: 2, params: { status: 'error' }, where: "account_id = 2 AND outcome = 'error'" },
  { label: 'a rare model', params: { model: 'rare' }, where: "model = 'rare'" },
  {
    label: 'a class, across accounts',
    params: { status: '5xx', account_id: '3' },
    where: 'account_id = 3 AND status >= 500 AND status < 600',
  },
  { label: 'since 3 days ago', params: { since: iso(NOW - 3 * DAY) }, where: `created_at >= '${iso(NOW - 3 * DAY)}'` },
  { label: 'until 5 days ago', params: { until: iso(NOW - 5 * DAY) }, where: `created_at < '${iso(NOW - 5 * DAY)}'` },
  {
    label: 'a week ending 2 days ago',
    params: { since: iso(NOW - 9 * DAY), until: iso(NOW - 2 * DAY) },
    where: `created_at >= '${iso(NOW - 9 * DAY)}' AND created_at < '${iso(NOW - 2 * DAY)}'`,
  },
];

describe('request listing read in time slices', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase();
    await writeRequestRecords(testDb.pool, records());
  });
  afterAll(async () => {
    await testDb.drop();
  });

  it.each(CASES)('pages through $label exactly as one unbounded statement orders it', async ({ accountId, params, where }) => {
    const expected = (
      await testDb.pool.query<{ request_id: string }>(
        `SELECT request_id FROM request_records WHERE ${where} ORDER BY created_at DESC, request_id DESC`,
      )
    ).rows.map((row) => row.request_id);
    expect(expected.length).toBeGreaterThan(3);
    for (const limit of [1, 3, 7, 100]) {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < 200; page += 1) {
        const query = operatorRequestsQuerySchema.parse({ limit: String(limit), ...params, ...(cursor ? { cursor } : {}) });
        const rows = await listRequestRecords(testDb.pool, accountId, query);
        const shown = rows.slice(0, limit);
        seen.push(...shown.map((row) => row.request_id));
        if (rows.length <= limit) break;
        cursor = encodeRequestCursor(shown[shown.length - 1]!);
      }
      expect(seen).toEqual(expected);
    }
  });
});
