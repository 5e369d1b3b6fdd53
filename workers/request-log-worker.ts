/**
 * The request-log worker (issue 22): reads the request-log stream through the consumer group
 * `request-log`, writes each batch of records in one transaction, then acknowledges and deletes the
 * entries and announces the written request ids (the API processes forget their copies). A worker
 * killed mid-batch loses nothing: its entries stay pending and are claimed again once idle
 * (XAUTOCLAIM); the write skips records already there. Each entry carries a batch of records (a
 * JSON array). A malformed record is logged and dropped (a
 * record is never worth blocking the stream). When Redis lost the group (NOGROUP) it is created again.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Dependencies } from '../src/dependencies';
import { createRedis } from '../src/redis/connection';
import { parseRequestRecord, type RequestRecord } from '../src/requests/request-record';
import { toEntries, type Entry } from './stream-entries';
import { writeRequestRecords } from './write-request-records';

export interface RequestLogWorkerOptions {
  /** Entries (each a batch of up to 200 records) per transaction at most (default 10). */
  maxBatch?: number;
  /** An entry held unacknowledged this long is taken over by another worker (default 30 s). */
  claimIdleMs?: number;
  /** After a read that did not fill a batch, how long to wait for more (default 50 ms). */
  lingerMs?: number;
  /** How long one read waits for new entries (default 1 s; also bounds how fast close() returns). */
  blockMs?: number;
}

export interface RequestLogWorker { close(): Promise<void> }

export const REQUEST_LOG_GROUP = 'request-log';

type WorkerDependencies = Pick<Dependencies, 'config' | 'db' | 'redis' | 'redisKeys' | 'logger'>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The records of one entry (a JSON array, see the producer's `batchEntries`); invalid ones are returned apart. */
function parseEntry(entry: Entry): { records: RequestRecord[]; invalid: unknown[] } {
  let values: unknown;
  try { values = JSON.parse(entry.payload ?? ''); } catch { values = undefined; }
  if (!Array.isArray(values)) return { records: [], invalid: [entry] };
  const records: RequestRecord[] = [];
  const invalid: unknown[] = [];
  for (const value of values) {
    const parsed = parseRequestRecord(value);
    if ('record' in parsed) records.push(parsed.record);
    else invalid.push({ value, error: parsed.error });
  }
  return { records, invalid };
}

export async function startRequestLogWorker(deps: WorkerDependencies, options: RequestLogWorkerOptions = {}): Promise<RequestLogWorker> {
  const logger = deps.logger.child({ component: 'request-log-worker' });
  const stream = deps.redisKeys.requestLogStream();
  const channel = deps.redisKeys.requestLogWrittenChannel();
  const maxBatch = options.maxBatch ?? 10;
  const idleMs = options.claimIdleMs ?? 30_000;
  const claimEveryMs = Math.max(1_000, Math.floor(idleMs / 2));
  const lingerMs = options.lingerMs ?? 50;
  const consumer = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const reader = createRedis(deps.config.redis, { waits: true, name: 'request-log-worker' });

  const ensureGroup = async () => {
    try {
      await deps.redis.xgroup('CREATE', stream, REQUEST_LOG_GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('BUSYGROUP')) throw error;
    }
  };

  const write = async (entries: Entry[]) => {
    const records: RequestRecord[] = [];
    for (const entry of entries) {
      const parsed = parseEntry(entry);
      records.push(...parsed.records);
      if (parsed.invalid.length > 0) logger.error({ invalid: parsed.invalid }, 'malformed request records dropped');
    }
    await writeRequestRecords(deps.db, records);
    const ids = entries.map((entry) => entry.id);
    await deps.redis.multi().xack(stream, REQUEST_LOG_GROUP, ...ids).xdel(stream, ...ids).exec();
    // Only final records are announced: the API process keeps its copy until the final one is written.
    const finals = records.filter((record) => !record.provisional).map((record) => record.requestId);
    if (finals.length > 0) {
      deps.redis.publish(channel, JSON.stringify(finals))
        .catch((error: unknown) => logger.warn({ err: error }, 'announcing written request records failed; producers will look for them'));
    }
  };

  const read = async (count: number, blockMs: number | undefined): Promise<Entry[]> => {
    const block = blockMs === undefined ? [] : ['BLOCK', blockMs];
    const reply = await reader.call('XREADGROUP', 'GROUP', REQUEST_LOG_GROUP, consumer, 'COUNT', count, ...block, 'STREAMS', stream, '>');
    const [first] = Array.isArray(reply) ? reply : [];
    return toEntries(Array.isArray(first) ? first[1] : undefined, 'b');
  };

  let running = true;
  let lastClaim = 0;
  const next = async (): Promise<Entry[]> => {
    if (Date.now() - lastClaim >= claimEveryMs) {
      lastClaim = Date.now();
      const claimed = await deps.redis.call('XAUTOCLAIM', stream, REQUEST_LOG_GROUP, consumer, idleMs, '0-0', 'COUNT', maxBatch);
      const entries = toEntries(Array.isArray(claimed) ? claimed[1] : undefined, 'b');
      if (entries.length > 0) {
        lastClaim = 0;
        return entries;
      }
    }
    const entries = await read(maxBatch, options.blockMs ?? 1_000);
    if (entries.length === 0 || entries.length >= maxBatch || lingerMs <= 0) return entries;
    await sleep(lingerMs);
    return [...entries, ...await read(maxBatch - entries.length, undefined)];
  };

  const loop = async () => {
    while (running) {
      try {
        const entries = await next();
        if (entries.length > 0) await write(entries);
      } catch (error) {
        if (!running) return;
        if (error instanceof Error && error.message.includes('NOGROUP')) {
          logger.warn('the request-log consumer group is gone (Redis lost its data); creating it again');
          await ensureGroup().catch(() => undefined);
          continue;
        }
        // Left pending: claimed again once idle, by this worker or another.
        logger.warn({ err: error }, 'writing request records failed; they will be retried');
        await sleep(500);
      }
    }
  };

  await ensureGroup();
  const done = loop();
  return {
    async close() {
      running = false;
      await done;
      reader.disconnect();
    },
  };
}
