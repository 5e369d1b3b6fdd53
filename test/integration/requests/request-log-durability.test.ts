/**
 * Issue 22, item 1: a request record, once the API answered, is not lost when a process dies or
 * Redis loses it: a worker that took records and died leaves them pending and another worker claims
 * and writes them (once each); a stream lost from Redis is appended again by the API process that
 * still holds its copy; records of a day without a partition get one.
 */
import { createRequestLog, type RequestLog } from '../../../src/requests/create-request-log';
import { createRecordsBeforeEnd } from '../../../src/requests/records-before-end';
import { USAGE_SHARDS } from '../../../src/redis/keys';
import { REQUEST_LOG_GROUP, startRequestLogWorker } from '../../../workers/request-log-worker';
import { writeRequestRecords } from '../../../workers/write-request-records';
import { createTestDependencies, type TestDependencies } from '../../support/dependencies';
import { requestRecord } from '../../support/request-record-fixture';
import { eventually } from '../billing/billing-fixtures';

jest.setTimeout(60_000);

const record = requestRecord;

describe('request records survive a dead worker and a Redis that lost them', () => {
  let deps: TestDependencies;
  let log: RequestLog;
  beforeAll(async () => {
    deps = await createTestDependencies();
    log = createRequestLog(deps, { confirmAfterMs: 200, sweepIntervalMs: 100 });
  });
  afterAll(async () => {
    await log.close();
    await deps.close();
  });

  const written = async (ids: string[]) =>
    (
      await deps.db.query<{ request_id: string }>('SELECT request_id FROM request_records WHERE request_id = ANY($1::text[])', [ids])
    ).rows.map((row) => row.request_id);

  it('a worker killed after taking records: another claims them and writes each once', async () => {
    const records = Array.from({ length: 50 }, () => record());
    for (const item of records) log.producer!.submit(item);
    expect(await log.producer!.flush()).toBe(true);
    // A worker reads them and dies before writing (nothing acknowledged).
    const stream = deps.redisKeys.accountRequestLogStream(1);
    await deps.redis.xgroup('CREATE', stream, REQUEST_LOG_GROUP, '0', 'MKSTREAM').catch(() => undefined);
    const taken = (await deps.redis.call(
      'XREADGROUP',
      'GROUP',
      REQUEST_LOG_GROUP,
      'dead-worker',
      'COUNT',
      1000,
      'STREAMS',
      stream,
      '>',
    )) as unknown[];
    expect(taken).toHaveLength(1);
    expect(await written(records.map((item) => item.requestId))).toEqual([]);

    const worker = await startRequestLogWorker(deps, { claimIdleMs: 300, blockMs: 100, lingerMs: 0 });
    try {
      expect(await log.producer!.drain(30_000)).toBe(true);
    } finally {
      await worker.close();
    }
    const ids = await written(records.map((item) => item.requestId));
    expect(new Set(ids)).toEqual(new Set(records.map((item) => item.requestId)));
    expect(ids).toHaveLength(records.length);
    expect(await deps.redis.xlen(stream)).toBe(0);
  });

  it('Redis lost the stream before any worker wrote it: the API process appends its copy again', async () => {
    const records = Array.from({ length: 20 }, () => record());
    for (const item of records) log.producer!.submit(item);
    expect(await log.producer!.flush()).toBe(true);
    await deps.redis.del(deps.redisKeys.accountRequestLogStream(1)); // what a flush does to this tenant's stream
    const worker = await startRequestLogWorker(deps, { blockMs: 100, lingerMs: 0 });
    try {
      expect(await log.producer!.drain(30_000)).toBe(true);
    } finally {
      await worker.close();
    }
    expect(await written(records.map((item) => item.requestId))).toHaveLength(records.length);
  });

  it('records of every shard are written, and those left in the unsharded stream of an older release too; that stream is deleted once drained', async () => {
    const sharded = [record({ accountId: 1 }), record({ accountId: 2 }), record({ accountId: 1 + USAGE_SHARDS })];
    for (const item of sharded) log.producer!.submit(item);
    expect(await log.producer!.flush()).toBe(true);
    expect(await deps.redis.xlen(deps.redisKeys.accountRequestLogStream(2))).toBe(1);
    // An older API process appended to the single stream (an upgrade with records in flight).
    const legacy = deps.redisKeys.legacyRequestLogStream();
    const old = [record(), record()];
    await deps.redis.xadd(legacy, '*', 'b', JSON.stringify(old));
    const worker = await startRequestLogWorker(deps, { claimIdleMs: 2_000, blockMs: 100, lingerMs: 0 });
    try {
      const ids = [...sharded, ...old].map((item) => item.requestId);
      await eventually(
        'every record',
        () => written(ids),
        (found) => found.length === ids.length,
      );
      // Checked again with each claim round (every second here): drained, so deleted.
      await eventually(
        'the unsharded stream gone',
        () => deps.redis.exists(legacy),
        (exists) => exists === 0,
      );
      // An older process still appending recreates it: read again.
      const late = record();
      await deps.redis.xadd(legacy, '*', 'b', JSON.stringify([late]));
      await eventually(
        'the late record',
        () => written([late.requestId]),
        (found) => found.length === 1,
      );
    } finally {
      await worker.close();
    }
  });

  it('a record from a day with no partition yet gets its partition', async () => {
    const old = record({ startedAt: Date.UTC(2020, 0, 15, 12) });
    log.producer!.submit(old);
    const worker = await startRequestLogWorker(deps, { blockMs: 100, lingerMs: 0 });
    try {
      await eventually(
        'the old record',
        () => written([old.requestId]),
        (ids) => ids.length === 1,
      );
    } finally {
      await worker.close();
    }
    const partition = await deps.db.query("SELECT 1 FROM pg_class WHERE relname = 'request_records_20200115'");
    expect(partition.rowCount).toBe(1);
  });

  it('a provisional record (appended before the answer ended) is replaced by the final one, in whatever order they come, once', async () => {
    const row = async (requestId: string) =>
      (
        await deps.db.query<{ provisional: boolean; duration_ms: number; output_tokens: number; has_bodies: boolean }>(
          'SELECT provisional, duration_ms, output_tokens, has_bodies FROM request_records WHERE request_id = $1',
          [requestId],
        )
      ).rows;
    const bodies = { request: '{}', response: '{}', streamEvents: 3, truncated: false };
    const pair = () => {
      const final = record({ durationMs: 40, outputTokens: 9, bodies });
      return { final, provisional: { ...final, durationMs: 30, outputTokens: 0, provisional: true, bodies: undefined } };
    };
    const finalFirst = pair();
    const provisionalFirst = pair();
    const together = pair();
    await writeRequestRecords(deps.db, [provisionalFirst.provisional, finalFirst.final]);
    await writeRequestRecords(deps.db, [provisionalFirst.final, finalFirst.provisional]);
    await writeRequestRecords(deps.db, [together.provisional, together.final, together.provisional]);
    // A retried batch changes nothing.
    await writeRequestRecords(deps.db, [provisionalFirst.provisional, provisionalFirst.final]);
    for (const { final } of [finalFirst, provisionalFirst, together]) {
      expect(await row(final.requestId)).toEqual([{ provisional: false, duration_ms: 40, output_tokens: 9, has_bodies: true }]);
    }
    // Alone (its process died before the final one), a provisional record stays, marked so.
    const alone = pair().provisional;
    await writeRequestRecords(deps.db, [alone]);
    expect(await row(alone.requestId)).toEqual([{ provisional: true, duration_ms: 30, output_tokens: 0, has_bodies: false }]);
  });

  it("a provisional record written does not release the API process's copy of the final one", async () => {
    const final = record();
    await writeRequestRecords(deps.db, [{ ...final, provisional: true }]);
    log.producer!.submit(final);
    expect(await log.producer!.flush()).toBe(true);
    // Redis loses the final record: the API process's check finds only the provisional row in
    // PostgreSQL, which does not count, so it appends its copy again.
    await deps.redis.del(deps.redisKeys.accountRequestLogStream(1));
    const worker = await startRequestLogWorker(deps, { blockMs: 100, lingerMs: 0 });
    try {
      expect(await log.producer!.drain(30_000)).toBe(true);
    } finally {
      await worker.close();
    }
    expect((await deps.db.query('SELECT provisional FROM request_records WHERE request_id = $1', [final.requestId])).rows).toEqual([
      { provisional: false },
    ]);
  });

  it('an append before the end that fails still lets the answers end, and the producer appends the records itself', async () => {
    const stream = deps.redisKeys.accountRequestLogStream(1);
    // The stream's key holds a string: every XADD to it fails (WRONGTYPE).
    await deps.redis.del(stream);
    await deps.redis.set(stream, 'not a stream');
    const failures: number[] = [];
    const beforeEnd = createRecordsBeforeEnd(deps.redis, (_error, records) => failures.push(records));
    const records = [record(), record()];
    const released = await Promise.all(
      records.map(
        (item) =>
          new Promise<boolean>((resolve) => {
            const held = log.producer!.hold(item)!;
            expect(beforeEnd.hold(stream, held.payload, () => resolve(true), held)).toBe(true);
          }),
      ),
    );
    expect(released).toEqual([true, true]);
    expect(failures).toEqual([2]);
    // Back to the producer: not in Redis yet, still held.
    expect(log.producer!.stats().pending).toBeGreaterThanOrEqual(2);
    await deps.redis.del(stream);
    const worker = await startRequestLogWorker(deps, { blockMs: 100, lingerMs: 0 });
    try {
      expect(await log.producer!.drain(30_000)).toBe(true);
    } finally {
      await worker.close();
    }
    expect(new Set(await written(records.map((item) => item.requestId)))).toEqual(new Set(records.map((item) => item.requestId)));
  });
});
