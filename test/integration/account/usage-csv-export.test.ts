/**
 * The usage CSV export is streamed: keyset pages of the listing's query, each written before the
 * next is read, newest first, every matching row (no cap), the listing's filters and cursor applied.
 */
import { settleUsageEvents } from '../../../src/billing/settle-usage-events';
import { writeUsageCsv } from '../../../src/account/usage-csv';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { createBillingFixture, usageEvent, type BillingFixture } from '../billing/billing-fixtures';

jest.setTimeout(60_000);

describe('usage CSV export', () => {
  let deps: TestDependencies;
  let fixture: BillingFixture;
  const ROWS = 10_050;

  beforeAll(async () => {
    deps = await createTestDependencies();
    fixture = await createBillingFixture(deps.db, deps.crypto, { keys: 2, balance: 10_000_000_000 });
    const base = Date.now() - ROWS * 1_000;
    const events = Array.from({ length: ROWS }, (_, index) => usageEvent(fixture, { startedAt: base + index * 1_000, credits: 1 }));
    for (let start = 0; start < ROWS; start += 1_000) await settleUsageEvents(deps.db, events.slice(start, start + 1_000));
  });
  afterAll(async () => {
    await deps.close();
  });

  it('writes every matching row, newest first, a page at a time', async () => {
    const chunks: string[] = [];
    const written = await writeUsageCsv(deps.db, { accountId: fixture.accountId }, async (chunk) => {
      chunks.push(chunk);
    });
    expect(written).toBe(ROWS);
    // The header, then one chunk per page of 2,000.
    expect(chunks).toHaveLength(1 + Math.ceil(ROWS / 2_000));
    const lines = chunks.join('').trim().split('\r\n');
    expect(lines).toHaveLength(1 + ROWS);
    const ids = lines.slice(1).map((line) => Number(line.split(',')[0]));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(ROWS);
  });

  it("applies the listing's filters and cursor", async () => {
    const keyId = fixture.keyIds[0]!;
    const expected = await deps.db.query<{ id: number }>('SELECT id FROM usage_rows WHERE api_key_id = $1 AND id < 5000 ORDER BY id DESC', [
      keyId,
    ]);
    const chunks: string[] = [];
    await writeUsageCsv(
      deps.db,
      { accountId: fixture.accountId, apiKeyId: keyId, beforeId: 5000 },
      async (chunk) => {
        chunks.push(chunk);
      },
      700,
    );
    const ids = chunks
      .join('')
      .trim()
      .split('\r\n')
      .slice(1)
      .map((line) => Number(line.split(',')[0]));
    expect(ids).toEqual(expected.rows.map((row) => row.id));
    expect(ids.length).toBeGreaterThan(700);
  });
});
