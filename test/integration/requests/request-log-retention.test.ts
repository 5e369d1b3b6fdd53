/**
 * Issue 22, item 7: retention removes request records, bodies and routing decisions older than their
 * periods (whole day partitions dropped, the day across the cutoff trimmed in batches) and keeps the rest.
 */
import type { RequestRecord } from '../../../src/requests/request-record';
import { ensureTimePartitions } from '../../../src/db/partitions';
import { createAccount } from '../../../src/process/seed';
import { applyRequestLogRetention } from '../../../workers/request-log-retention';
import { writeRequestRecords } from '../../../workers/write-request-records';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { requestRecord } from '../../support/request-record-fixture';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 5, 20, 12);

function record(ageMs: number, withBodies: boolean): RequestRecord {
  return requestRecord({
    startedAt: NOW - ageMs,
    ...(withBodies ? { bodies: { request: '{}', response: '{}', streamEvents: null, truncated: false } } : {}),
  });
}

describe('request log retention', () => {
  let deps: TestDependencies;
  beforeAll(async () => {
    deps = await createTestDependencies();
  });
  afterAll(async () => {
    await deps.close();
  });

  it('removes what is older than each period, and only that', async () => {
    const ages = { ancient: 40 * DAY, justOld: 30 * DAY + 3_600_000, justNew: 30 * DAY - 3_600_000, bodiesOld: 8 * DAY, recent: DAY };
    const records = Object.fromEntries(Object.entries(ages).map(([name, age]) => [name, record(age, true)])) as Record<
      keyof typeof ages,
      RequestRecord
    >;
    await writeRequestRecords(deps.db, Object.values(records));
    const accountId = await createAccount(deps.db, { name: 'r', tier: 'pro' });
    // Routing decisions are partitioned by day (migration 080): the days of these, in the past, get theirs.
    await ensureTimePartitions(deps.db, 'routing_decisions', 'day', NOW - 31 * DAY, NOW);
    for (const [id, age] of [
      ['old-decision', 31 * DAY],
      ['new-decision', 29 * DAY],
    ] as const) {
      await deps.db.query(
        "INSERT INTO routing_decisions (request_id, account_id, model, outcome, steps, created_at) VALUES ($1, $2, 'm', 'served', '[]', $3)",
        [id, accountId, new Date(NOW - age)],
      );
    }

    const report = await applyRequestLogRetention(
      deps.db,
      { recordsDays: 30, bodiesDays: 7, routingDecisionsDays: 30, webhookDeliveriesDays: 30 },
      NOW,
    );

    const kept = (await deps.db.query<{ request_id: string }>('SELECT request_id FROM request_records')).rows.map((row) => row.request_id);
    expect(new Set(kept)).toEqual(new Set([records.justNew.requestId, records.bodiesOld.requestId, records.recent.requestId]));
    const bodies = (await deps.db.query<{ request_id: string }>('SELECT request_id FROM request_bodies')).rows.map((row) => row.request_id);
    expect(bodies).toEqual([records.recent.requestId]);
    const decisions = (await deps.db.query<{ request_id: string }>('SELECT request_id FROM routing_decisions')).rows.map(
      (row) => row.request_id,
    );
    expect(decisions).toEqual(['new-decision']);
    // The ancient day went as a whole partition; the partitions ahead exist.
    expect(report.partitionsDropped).toContain('request_records_20260511');
    expect(report.recordsDeleted).toBe(1);
    const ahead = await deps.db.query("SELECT 1 FROM pg_class WHERE relname = 'request_records_20260627'");
    expect(ahead.rowCount).toBe(1);
  });

  it('removes settled webhook deliveries older than their period, in batches, and keeps new ones and those still retried', async () => {
    const accountId = await createAccount(deps.db, { name: 'w', tier: 'pro' });
    const webhook = await deps.db.query<{ id: string }>(
      "INSERT INTO webhooks (account_id, url, events, secret_encrypted, secret_last4) VALUES ($1, 'https://example.com/h', '{}', 'x', 'abcd') RETURNING id",
      [accountId],
    );
    const deliveries = async (ageMs: number, status: string, count: number) =>
      (
        await deps.db.query<{ id: string }>(
          `INSERT INTO webhook_deliveries (webhook_id, account_id, event, payload, status, created_at)
        SELECT $1, $2, 'alert.fired', '{}', $3, $4 FROM generate_series(1, $5) RETURNING id`,
          [webhook.rows[0]!.id, accountId, status, new Date(NOW - ageMs), count],
        )
      ).rows.map((row) => row.id);
    // More old rows than one batch (5,000): they go in several.
    const oldDelivered = await deliveries(20 * DAY, 'delivered', 5_200);
    const oldFailed = await deliveries(15 * DAY, 'failed', 3);
    const oldPending = await deliveries(15 * DAY, 'pending', 2);
    const recent = await deliveries(13 * DAY, 'delivered', 4);

    const report = await applyRequestLogRetention(
      deps.db,
      { recordsDays: 30, bodiesDays: 7, routingDecisionsDays: 30, webhookDeliveriesDays: 14 },
      NOW,
    );

    expect(report.webhookDeliveriesDeleted).toBe(oldDelivered.length + oldFailed.length);
    const kept = (await deps.db.query<{ id: string }>('SELECT id FROM webhook_deliveries WHERE account_id = $1', [accountId])).rows.map(
      (row) => row.id,
    );
    expect(new Set(kept)).toEqual(new Set([...oldPending, ...recent]));
  });
});
