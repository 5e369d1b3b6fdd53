/**
 * Usage rows, ledger entries and routing decisions partitioned by time (migration 080): an install
 * with rows is converted in place without losing or changing one; the uniqueness the old unique
 * indexes gave (a usage row's request id, the ledger's (kind, reference), a decision's request id)
 * holds exactly as before, concurrent writers included; rows outside the partitions land in the
 * default partition and move into theirs when it is created; routing decisions go by whole days.
 */
import type { Pool } from 'pg';
import { applyLedgerEntry, writeUsageEvents } from '../../../src/db/repositories/ledger';
import { settleUsageEvents } from '../../../src/billing/settle-usage-events';
import { loadConfig } from '../../../src/config';
import { migrate } from '../../../src/db/migrate';
import { dropPartitionsBefore, ensureTimePartitions } from '../../../src/db/partitions';
import { createPool } from '../../../src/db/pool';
import { inTransaction } from '../../../src/db/transaction';
import { createLogger } from '../../../src/http/logger';
import { recordRoutingDecision } from '../../../src/routing/routing-decisions';
import { startRequestLogMaintenance } from '../../../workers/request-log-maintenance';
import { maintainTimePartitions, applyRoutingDecisionsRetention } from '../../../workers/time-partitions';
import { createEmptyDatabase } from '../../support/database';
import { usageEvent } from '../billing/billing-fixtures';

const DAY = 86_400_000;
const BEFORE_PARTITIONING = '070_alerts_webhooks.sql';

const SNAPSHOTS = {
  usage_rows: 'SELECT * FROM usage_rows ORDER BY id',
  ledger_entries: 'SELECT * FROM ledger_entries ORDER BY id',
  routing_decisions: 'SELECT * FROM routing_decisions ORDER BY request_id',
} as const;

async function snapshot(db: Pool): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, sql] of Object.entries(SNAPSHOTS)) out[table] = (await db.query(sql)).rows;
  return out;
}

/** Rows of an install before migration 080, spread over 14 months (days for the decisions). */
async function fillOldInstall(db: Pool, nowMs: number): Promise<number> {
  const account = await db.query<{ id: number }>("INSERT INTO accounts (name, balance_credits) VALUES ('old', 1000000) RETURNING id");
  const accountId = Number(account.rows[0]?.id);
  let balance = 1_000_000;
  await db.query(
    "INSERT INTO ledger_entries (account_id, kind, amount_credits, balance_after, reference, created_at) VALUES ($1, 'topup', 1000000, 1000000, 'pay-1', $2)",
    [accountId, new Date(nowMs - 420 * DAY)],
  );
  for (let index = 0; index < 60; index += 1) {
    const at = new Date(nowMs - index * 7 * DAY);
    balance -= 10 + index;
    await db.query(
      `INSERT INTO usage_rows (request_id, account_id, api_key_id, model, protocol, credits, started_at, created_at)
                    VALUES ($1, $2, $3, 'm', 'chat', $4, $5, $5)`,
      [`old-${index}`, accountId, index % 3, 10 + index, at],
    );
    await db.query(
      "INSERT INTO ledger_entries (account_id, kind, amount_credits, balance_after, reference, created_at) VALUES ($1, 'charge', $2, $3, $4, $5)",
      [accountId, -(10 + index), balance, `old-${index}`, at],
    );
    if (index < 20) {
      await db.query(
        "INSERT INTO routing_decisions (request_id, account_id, model, outcome, steps, created_at) VALUES ($1, $2, 'm', 'refused', '[]', $3)",
        [`old-${index}`, accountId, new Date(nowMs - index * DAY)],
      );
    }
  }
  // An entry without reference (never deduplicated) stays one.
  balance += 5;
  await db.query(
    "INSERT INTO ledger_entries (account_id, kind, amount_credits, balance_after, reference) VALUES ($1, 'adjustment', 5, $2, NULL)",
    [accountId, balance],
  );
  await db.query('UPDATE accounts SET balance_credits = $2 WHERE id = $1', [accountId, balance]);
  return accountId;
}

describe('usage rows, ledger entries and routing decisions partitioned by time', () => {
  let database: { url: string; drop(): Promise<void> };
  let db: Pool;
  let accountId: number;
  let before: Record<string, unknown[]>;
  const now = Date.now();

  beforeAll(async () => {
    database = await createEmptyDatabase();
    await migrate(database.url, { through: BEFORE_PARTITIONING });
    db = createPool(database.url, 6);
    accountId = await fillOldInstall(db, now);
    before = await snapshot(db);
    expect(await migrate(database.url)).toContain('080_partition_usage_ledger_routing.sql');
  });
  afterAll(async () => {
    await db.end();
    await database.drop();
  });

  it('converts an install with rows in place: every row kept as it was, spread over time partitions', async () => {
    expect(await snapshot(db)).toEqual(before);
    const partitioned = await db.query<{ relname: string }>(
      'SELECT c.relname FROM pg_partitioned_table p JOIN pg_class c ON c.oid = p.partrelid ORDER BY 1',
    );
    expect(partitioned.rows.map((row) => row.relname)).toEqual(
      expect.arrayContaining(['ledger_entries', 'routing_decisions', 'usage_rows']),
    );
    const spread = await db.query<{ n: string }>('SELECT count(DISTINCT tableoid) AS n FROM usage_rows');
    expect(Number(spread.rows[0]?.n)).toBeGreaterThanOrEqual(13);
    const inDefault = await db.query<{ n: string }>(
      'SELECT (SELECT count(*) FROM usage_rows_default) + (SELECT count(*) FROM ledger_entries_default) AS n',
    );
    expect(Number(inDefault.rows[0]?.n)).toBe(0);
    // The wallet still equals the sum of its entries; ids continue after the copied ones.
    const sums = await db.query<{ balance: number; total: string }>(
      'SELECT a.balance_credits AS balance, (SELECT sum(amount_credits) FROM ledger_entries WHERE account_id = a.id) AS total FROM accounts a WHERE a.id = $1',
      [accountId],
    );
    expect(Number(sums.rows[0]?.total)).toBe(sums.rows[0]?.balance);
    const next = await settleUsageEvents(db, [usageEvent({ accountId, keyIds: [1] }, { credits: 3 })]);
    expect(next[0]?.written).toBe(true);
    const ids = await db.query<{ max_usage: number; max_ledger: number }>(
      'SELECT (SELECT max(id) FROM usage_rows) AS max_usage, (SELECT max(id) FROM ledger_entries) AS max_ledger',
    );
    expect(ids.rows[0]?.max_usage).toBe(before.usage_rows.length + 1);
    expect(ids.rows[0]?.max_ledger).toBe(before.ledger_entries.length + 1);
  });

  it('keeps a request id and a (kind, reference) unique across partitions, for copied rows and new ones', async () => {
    // A replay of a copied row (months old, another partition than today's) writes nothing.
    const replay = usageEvent({ accountId, keyIds: [1] }, { requestId: 'old-40', credits: 99, startedAt: now });
    expect(await settleUsageEvents(db, [replay])).toEqual([{ requestId: 'old-40', written: false }]);
    const charge = await inTransaction(db, (client) =>
      applyLedgerEntry(client, { accountId, kind: 'charge', amountCredits: -1, reference: 'old-59' }),
    );
    expect(charge.applied).toBe(false);
    const topUp = await inTransaction(db, (client) =>
      applyLedgerEntry(client, { accountId, kind: 'topup', amountCredits: 7, reference: 'pay-1' }),
    );
    expect(topUp.applied).toBe(false);
    // The same reference under another kind is another entry, as with UNIQUE (kind, reference).
    const refund = await inTransaction(db, (client) =>
      applyLedgerEntry(client, { accountId, kind: 'refund', amountCredits: 7, reference: 'pay-1' }),
    );
    expect(refund.applied).toBe(true);
    // A new event is written once, then refused, whatever its start time (another partition).
    const fresh = usageEvent({ accountId, keyIds: [1] }, { credits: 4, startedAt: now - 200 * DAY });
    expect((await settleUsageEvents(db, [fresh]))[0]?.written).toBe(true);
    expect((await settleUsageEvents(db, [{ ...fresh, startedAt: now }]))[0]?.written).toBe(false);
    const rows = await db.query('SELECT 1 FROM usage_rows WHERE request_id = $1', [fresh.requestId]);
    const entries = await db.query("SELECT 1 FROM ledger_entries WHERE kind = 'charge' AND reference = $1", [fresh.requestId]);
    expect([rows.rowCount, entries.rowCount]).toEqual([1, 1]);
    // A decision is recorded once per request id, whatever the day.
    await recordRoutingDecision(db, { requestId: 'old-19', accountId, apiKeyId: null, model: 'x', outcome: 'served', steps: [] });
    const decision = await db.query<{ model: string }>("SELECT model FROM routing_decisions WHERE request_id = 'old-19'");
    expect(decision.rows).toEqual([{ model: 'm' }]);
  });

  it('makes a concurrent writer of the same request id wait for the first and write nothing', async () => {
    const event = usageEvent({ accountId, keyIds: [1] }, { credits: 11 });
    const first = await db.connect();
    try {
      await first.query('BEGIN');
      expect((await writeUsageEvents(first, [event]))[0]?.written).toBe(true);
      let settled = false;
      const second = settleUsageEvents(db, [event]).finally(() => {
        settled = true;
      });
      // The second waits on the first's uncommitted claim (seen in pg_locks), then finds it taken.
      const deadline = Date.now() + 10_000;
      for (;;) {
        const waiting = await db.query("SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'");
        if (waiting.rowCount) break;
        if (Date.now() > deadline) throw new Error('the second writer never waited');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(settled).toBe(false);
      await first.query('COMMIT');
      expect(await second).toEqual([{ requestId: event.requestId, written: false }]);
    } finally {
      first.release();
    }
    const charged = await db.query("SELECT amount_credits FROM ledger_entries WHERE kind = 'charge' AND reference = $1", [event.requestId]);
    expect(charged.rows).toEqual([{ amount_credits: -11 }]);
  });

  it('never fails a write for want of a partition: the default takes it, and the partition created later gets it back', async () => {
    const far = now + 400 * DAY;
    const late = usageEvent({ accountId, keyIds: [1] }, { credits: 2, startedAt: far });
    expect((await settleUsageEvents(db, [late]))[0]?.written).toBe(true);
    const where = async () =>
      (await db.query<{ part: string }>('SELECT tableoid::regclass::text AS part FROM usage_rows WHERE request_id = $1', [late.requestId]))
        .rows[0]?.part;
    expect(await where()).toBe('usage_rows_default');
    await maintainTimePartitions(db, far);
    const month = new Date(far).toISOString().slice(0, 7).replace('-', '');
    expect(await where()).toBe(`usage_rows_${month}`);
  });

  it('has the maintenance worker create the partitions ahead', async () => {
    const later = now + 700 * DAY;
    const config = loadConfig({
      NODE_ENV: 'test',
      ENCRYPTION_KEY: 'ab'.repeat(32),
      HMAC_SECRET: 'x'.repeat(32),
      ROUTING_DECISIONS_RETENTION_DAYS: '3650',
    });
    const worker = startRequestLogMaintenance({ config, db, logger: createLogger('silent'), clock: { now: () => later } });
    try {
      const month = (ms: number) => new Date(ms).toISOString().slice(0, 7).replace('-', '');
      const day = new Date(later + 7 * DAY).toISOString().slice(0, 10).replace(/-/g, '');
      const wanted = [`usage_rows_${month(later + 62 * DAY)}`, `ledger_entries_${month(later + 62 * DAY)}`, `routing_decisions_${day}`];
      const deadline = Date.now() + 20_000;
      for (;;) {
        const found = await db.query('SELECT 1 FROM pg_class WHERE relname = ANY($1::text[])', [wanted]);
        if (found.rowCount === wanted.length) break;
        if (Date.now() > deadline) throw new Error(`the maintenance worker did not create ${wanted.join(', ')}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await worker.close();
    }
  });

  it('drops routing decisions older than the retention by whole days, with their claims', async () => {
    const report = await applyRoutingDecisionsRetention(db, 10, now);
    expect(report.partitionsDropped.length).toBeGreaterThanOrEqual(8);
    const left = await db.query<{ request_id: string }>("SELECT request_id FROM routing_decisions WHERE request_id LIKE 'old-%'");
    const kept = left.rows.map((row) => Number(row.request_id.slice(4)));
    expect(Math.max(...kept)).toBeLessThanOrEqual(10);
    expect(kept).toContain(9);
    const claims = await db.query('SELECT 1 FROM routing_decision_ids WHERE created_at < $1', [new Date(now - 10 * DAY)]);
    expect(claims.rowCount).toBe(0);
    // An id whose decision went with retention may be recorded again (its claim went with it).
    await recordRoutingDecision(db, { requestId: 'old-15', accountId, apiKeyId: null, model: 'again', outcome: 'served', steps: [] });
    expect((await db.query("SELECT 1 FROM routing_decisions WHERE request_id = 'old-15'")).rowCount).toBe(1);
  });

  it('drops whole month partitions of a table with a default partition (a plain detach, CONCURRENTLY being refused there)', async () => {
    const oldest = await db.query<{ part: string; n: string }>(
      'SELECT tableoid::regclass::text AS part, count(*) AS n FROM usage_rows GROUP BY 1 ORDER BY min(started_at) LIMIT 1',
    );
    const part = oldest.rows[0]!.part;
    const total = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM usage_rows')).rows[0]?.n);
    const suffix = part.slice(-6);
    const cutoff = Date.UTC(Number(suffix.slice(0, 4)), Number(suffix.slice(4, 6)), 1);
    expect(await dropPartitionsBefore(db, 'usage_rows', cutoff)).toEqual([part]);
    const after = Number((await db.query<{ n: string }>('SELECT count(*) AS n FROM usage_rows')).rows[0]?.n);
    expect(after).toBe(total - Number(oldest.rows[0]!.n));
    expect((await db.query('SELECT 1 FROM pg_class WHERE relname = $1', [part])).rowCount).toBe(0);
  });

  it('frees a partition an interrupted retention left detached, and leaves newer ones and the default alone', async () => {
    await ensureTimePartitions(db, 'routing_decisions', 'day', Date.UTC(2020, 0, 1), Date.UTC(2020, 0, 3));
    // A run stopped between its detach and its drop left routing_decisions_20200101 detached.
    await db.query('ALTER TABLE routing_decisions DETACH PARTITION routing_decisions_20200101');
    const tables = async () =>
      (
        await db.query<{ relname: string }>(
          "SELECT relname FROM pg_class WHERE relname IN ('routing_decisions_20200101', 'routing_decisions_20200102', 'routing_decisions_20200103') ORDER BY relname",
        )
      ).rows.map((row) => row.relname);
    expect(await tables()).toEqual(['routing_decisions_20200101', 'routing_decisions_20200102', 'routing_decisions_20200103']);
    expect(await dropPartitionsBefore(db, 'routing_decisions', Date.UTC(2020, 0, 3))).toEqual(['routing_decisions_20200102']);
    expect(await tables()).toEqual(['routing_decisions_20200103']);
  });

  it('creates a missing day partition of routing decisions when a decision needs it', async () => {
    const today = `routing_decisions_${new Date().toISOString().slice(0, 10).replace(/-/g, '')}`;
    await db.query(`DROP TABLE ${today}`);
    await recordRoutingDecision(db, { requestId: 'after-drop', accountId, apiKeyId: null, model: 'm', outcome: 'refused', steps: [] });
    const part = await db.query<{ part: string }>(
      "SELECT tableoid::regclass::text AS part FROM routing_decisions WHERE request_id = 'after-drop'",
    );
    expect(part.rows).toEqual([{ part: today }]);
  });
});
