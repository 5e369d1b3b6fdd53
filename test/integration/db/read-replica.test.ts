/**
 * DATABASE_READ_URL: the console's aggregates and listings (usage listing, CSV export, daily usage,
 * key windows, the request log's listing and figures) read from the read pool; the account, its
 * balance and ledger, and every write stay on the primary. The "replica" here is a second database
 * on the same server, reached through a read-only connection (default_transaction_read_only), holding
 * the primary's accounts and keys but other usage rows and request records: what a response shows
 * says which pool answered it, and a write sent to the read pool would fail.
 */
import type { Pool } from 'pg';
import { settleUsageEvents } from '../../../src/billing/settle-usage-events';
import type { UsageEvent } from '../../../src/billing/usage-event';
import { loadConfig } from '../../../src/config';
import { readPool } from '../../../src/dependencies';
import { buildDependencies, closeDependencies } from '../../../src/process/build-dependencies';
import type { RequestRecord } from '../../../src/requests/request-record';
import { writeRequestRecords } from '../../../workers/write-request-records';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { createTestDependencies } from '../../support/dependencies';
import { startTestGateway, type TestGateway } from '../../support/gateway';
import { requestRecord } from '../../support/request-record-fixture';

jest.setTimeout(60_000);

type Json = Record<string, unknown>;

function readOnly(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('options', '-c default_transaction_read_only=on');
  return parsed.toString();
}

/** Copies `table`'s rows from one database to the other, ids included. */
async function copyRows(from: Pool, to: Pool, table: string): Promise<void> {
  const rows = await from.query<{ rows: unknown }>(`SELECT json_agg(t) AS rows FROM ${table} t`);
  await to.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [
    JSON.stringify(rows.rows[0]?.rows ?? []),
  ]);
}

function usage(accountId: number, apiKeyId: number, requestId: string, model: string, credits: number): UsageEvent {
  return {
    requestId,
    accountId,
    apiKeyId,
    model,
    protocol: 'chat',
    upstreamAccountId: null,
    promptTokens: 10,
    completionTokens: 5,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    images: 0,
    videoSeconds: 0,
    credits,
    stream: false,
    status: 'ok',
    startedAt: Date.now() - 60_000,
  };
}

function record(accountId: number, apiKeyId: number, requestId: string, model: string): RequestRecord {
  return requestRecord({ requestId, accountId, apiKeyId, model, inputTokens: 10, outputTokens: 5, startedAt: Date.now() - 60_000 });
}

describe('DATABASE_READ_URL', () => {
  let replica: TestDatabase;
  let gateway: TestGateway;
  let keyId: number;

  const get = async (path: string): Promise<{ status: number; body: string }> => {
    const response = await fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${gateway.key}` } });
    return { status: response.status, body: await response.text() };
  };
  const json = async (path: string): Promise<Json> => {
    const { status, body } = await get(path);
    expect(status).toBe(200);
    return JSON.parse(body) as Json;
  };

  beforeAll(async () => {
    replica = await createTestDatabase();
    gateway = await startTestGateway({ env: { DATABASE_READ_URL: readOnly(replica.url) } });
    const primary = gateway.deps.db;
    for (const table of ['accounts', 'routing_groups', 'api_keys']) await copyRows(primary, replica.pool, table);
    const key = await primary.query<{ id: number }>('SELECT id FROM api_keys WHERE account_id = $1', [gateway.accountId]);
    keyId = Number(key.rows[0]?.id);
    await settleUsageEvents(primary, [usage(gateway.accountId, keyId, 'req_on_primary', 'primary-model', 1_000)]);
    await settleUsageEvents(replica.pool, [
      usage(gateway.accountId, keyId, 'req_on_replica_1', 'replica-model', 2_000),
      usage(gateway.accountId, keyId, 'req_on_replica_2', 'replica-model', 3_000),
    ]);
    await writeRequestRecords(primary, [record(gateway.accountId, keyId, 'req_on_primary', 'primary-model')]);
    await writeRequestRecords(replica.pool, [record(gateway.accountId, keyId, 'req_on_replica_1', 'replica-model')]);
  });
  afterAll(async () => {
    await gateway?.close();
    await replica?.drop();
  });

  it('gives the process a read pool of its own, on which a write fails', async () => {
    const readDb = gateway.deps.readDb;
    expect(readDb).toBeDefined();
    expect(readPool(gateway.deps)).toBe(readDb);
    expect(readDb).not.toBe(gateway.deps.db);
    await expect(readDb!.query("INSERT INTO routing_groups (name) VALUES ('misrouted')")).rejects.toMatchObject({ code: '25006' });
  });

  it('answers the usage listing, its export, daily usage and key windows from the read pool', async () => {
    const listing = await json('/api/v1/me/usage');
    expect((listing.data as Json[]).map((row) => row.request_id).sort()).toEqual(['req_on_replica_1', 'req_on_replica_2']);
    const csv = await get('/api/v1/me/usage/export');
    expect(csv.status).toBe(200);
    expect(csv.body).toContain('req_on_replica_2');
    expect(csv.body).not.toContain('req_on_primary');
    const daily = await json('/api/v1/me/usage/daily?days=7');
    expect((daily.totals as { last_7d: { requests: number; credits: number } }).last_7d).toMatchObject({ requests: 2, credits: 5_000 });
    const windows = await json('/api/v1/me/key-windows');
    const mine = (windows.data as Array<{ api_key_id: number; windows: Array<{ name: string; spent: number }> }>).find(
      (key) => key.api_key_id === keyId,
    );
    expect(mine?.windows[0]?.spent).toBe(0.005);
  });

  it('answers the request log listing and its figures from the read pool', async () => {
    const listing = await json('/api/v1/me/requests');
    expect((listing.data as Json[]).map((row) => row.request_id)).toEqual(['req_on_replica_1']);
    const stats = await get('/api/v1/me/requests/stats?by=model');
    expect(stats.status).toBe(200);
    expect(stats.body).toContain('replica-model');
    expect(stats.body).not.toContain('primary-model');
  });

  it('keeps the account, its ledger and every write on the primary', async () => {
    const balance = await gateway.deps.db.query<{ balance_credits: number }>('SELECT balance_credits FROM accounts WHERE id = $1', [
      gateway.accountId,
    ]);
    const account = await json('/api/v1/me/account');
    expect(JSON.stringify(account)).toContain(String(balance.rows[0]?.balance_credits));
    const ledger = await json('/api/v1/me/billing/transactions?kind=charge');
    const references = (ledger.data as Json[]).map((entry) => entry.reference);
    expect(references).toContain('req_on_primary');
    expect(references).not.toContain('req_on_replica_1');
  });
});

describe('DATABASE_READ_URL in the process dependencies', () => {
  it('builds a distinct read pool when set, and none when unset (the primary then serves reads)', async () => {
    const deps = await createTestDependencies();
    try {
      const withRead = buildDependencies(loadConfig({ ...deps.env, DATABASE_READ_URL: readOnly(deps.testDb.url) }), {
        processName: 'read-test',
      });
      try {
        expect(withRead.readDb).toBeDefined();
        const mode = await withRead.readDb!.query<{ default_transaction_read_only: string }>('SHOW default_transaction_read_only');
        expect(mode.rows[0]?.default_transaction_read_only).toBe('on');
        const primaryMode = await withRead.db.query<{ default_transaction_read_only: string }>('SHOW default_transaction_read_only');
        expect(primaryMode.rows[0]?.default_transaction_read_only).toBe('off');
      } finally {
        await closeDependencies(withRead);
      }
      const without = buildDependencies(loadConfig(deps.env), { processName: 'read-test' });
      try {
        expect(without.readDb).toBeUndefined();
        expect(readPool(without)).toBe(without.db);
      } finally {
        await closeDependencies(without);
      }
    } finally {
      await deps.close();
    }
  });
});
