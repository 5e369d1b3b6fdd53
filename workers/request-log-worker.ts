/**
 * The request-log worker (issue 22): reads the request-log streams of every shard (a whole paid
 * answer's record is appended by its settlement script, so the streams are sharded like the usage
 * streams, see src/redis/keys.ts) through the consumer group `request-log` of each: a poll reads
 * every shard at once (one command per shard: on a cluster each lives in its own slot), and while all
 * are empty the worker polls less often, up to `blockMs` apart. Each batch of records is written in
 * one transaction, then its entries are acknowledged and deleted and the written request ids
 * announced (the API processes forget their copies). A worker killed mid-batch loses nothing: its
 * entries stay pending and are claimed again once idle (XAUTOCLAIM); the write skips records already
 * there. Each entry carries a batch of records (a JSON array). A malformed record is logged and
 * dropped (a record is never worth blocking the stream). When Redis lost a group (NOGROUP) it is
 * created again. The single stream of releases before the sharding is read too while it exists (an
 * upgrade with records in flight, or older API processes still running), and deleted once drained.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Dependencies } from '../src/dependencies';
import { ALL_USAGE_SHARDS, groupBy } from '../src/redis/keys';
import { loadRedisScript, runRedisScript } from '../src/redis/redis-script';
import { parseRequestRecord, type RequestRecord } from '../src/requests/request-record';
import { toEntries, type Entry as StreamEntry } from './stream-entries';
import { writeRequestRecords } from './write-request-records';

export interface RequestLogWorkerOptions {
  /** Entries (each a batch of up to 200 records) per transaction at most (default 10). */
  maxBatch?: number;
  /** An entry held unacknowledged this long is taken over by another worker (default 30 s). */
  claimIdleMs?: number;
  /** After a read that did not fill a batch, how long to wait for more (default 50 ms). */
  lingerMs?: number;
  /** Longest pause between polls of the shards while all are empty (default 250 ms; also bounds how fast close() returns). */
  blockMs?: number;
}

export interface RequestLogWorker {
  close(): Promise<void>;
}

export const REQUEST_LOG_GROUP = 'request-log';

type WorkerDependencies = Pick<Dependencies, 'config' | 'db' | 'redis' | 'redisKeys' | 'logger'>;

interface Entry extends StreamEntry {
  stream: string;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The records of one entry (a JSON array, see the producer's `batchEntries`); invalid ones are returned apart. */
function parseEntry(entry: Entry): { records: RequestRecord[]; invalid: unknown[] } {
  let values: unknown;
  try {
    values = JSON.parse(entry.payload ?? '');
  } catch {
    values = undefined;
  }
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

/** A stream's `[id, [field, value, …]]` rows, each entry marked with its stream. */
function entriesOf(stream: string, rows: unknown): Entry[] {
  return toEntries(rows, 'b').map((entry) => ({ ...entry, stream }));
}

function isBusyGroup(error: unknown): boolean {
  return error instanceof Error && error.message.includes('BUSYGROUP');
}

export async function startRequestLogWorker(deps: WorkerDependencies, options: RequestLogWorkerOptions = {}): Promise<RequestLogWorker> {
  const logger = deps.logger.child({ component: 'request-log-worker' });
  const { redis, redisKeys } = deps;
  const shardStreams = ALL_USAGE_SHARDS.map((shard) => redisKeys.requestLogStream(shard));
  const legacyStream = redisKeys.legacyRequestLogStream();
  const dropDrained = loadRedisScript('drop-drained-stream-1');
  const channel = redisKeys.requestLogWrittenChannel();
  const maxBatch = options.maxBatch ?? 10;
  const idleMs = options.claimIdleMs ?? 30_000;
  const claimEveryMs = Math.max(1_000, Math.floor(idleMs / 2));
  const lingerMs = options.lingerMs ?? 50;
  const blockMs = options.blockMs ?? 250;
  const consumer = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  // Whether the unsharded stream exists (looked at on start, after a NOGROUP and with each claim).
  let legacy = false;

  const streams = () => (legacy ? [...shardStreams, legacyStream] : shardStreams);

  const ensureGroups = () =>
    Promise.all(
      shardStreams.map(async (stream) => {
        try {
          await redis.xgroup('CREATE', stream, REQUEST_LOG_GROUP, '0', 'MKSTREAM');
        } catch (error) {
          if (!isBusyGroup(error)) throw error;
        }
      }),
    );

  /** The unsharded stream: read while it exists (no MKSTREAM: it is never created here), deleted once drained. */
  const lookForLegacy = async () => {
    try {
      await redis.xgroup('CREATE', legacyStream, REQUEST_LOG_GROUP, '0');
      legacy = true;
    } catch (error) {
      legacy = isBusyGroup(error);
    }
    if (legacy && Number(await runRedisScript(redis, dropDrained, [legacyStream], [REQUEST_LOG_GROUP])) === 1) {
      legacy = false;
      logger.info('the unsharded request-log stream is drained; deleted');
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
    // One MULTI per stream: on a cluster each shard's stream is in its own slot.
    await Promise.all(
      [...groupBy(entries, (entry) => entry.stream)].map(async ([stream, group]) => {
        const ids = group.map((entry) => entry.id);
        await redis
          .multi()
          .xack(stream, REQUEST_LOG_GROUP, ...ids)
          .xdel(stream, ...ids)
          .exec();
      }),
    );
    // Only final records are announced: the API process keeps its copy until the final one is written.
    const finals = records.filter((record) => !record.provisional).map((record) => record.requestId);
    if (finals.length > 0) {
      redis
        .publish(channel, JSON.stringify(finals))
        .catch((error: unknown) => logger.warn({ err: error }, 'announcing written request records failed; producers will look for them'));
    }
  };

  /** New entries of every stream, up to `count` each. */
  const read = async (count: number): Promise<Entry[]> =>
    (
      await Promise.all(
        streams().map(async (stream) => {
          const reply = await redis.call('XREADGROUP', 'GROUP', REQUEST_LOG_GROUP, consumer, 'COUNT', count, 'STREAMS', stream, '>');
          const [first] = Array.isArray(reply) ? reply : [];
          return entriesOf(stream, Array.isArray(first) ? first[1] : undefined);
        }),
      )
    ).flat();

  /** Entries of every stream that another consumer (a dead worker) held unacknowledged for `idleMs`. */
  const claim = async (): Promise<Entry[]> =>
    (
      await Promise.all(
        streams().map(async (stream) => {
          const claimed = await redis.call('XAUTOCLAIM', stream, REQUEST_LOG_GROUP, consumer, idleMs, '0-0', 'COUNT', maxBatch);
          return entriesOf(stream, Array.isArray(claimed) ? claimed[1] : undefined);
        }),
      )
    ).flat();

  let running = true;
  let lastClaim = 0;
  let idlePauseMs = 0;
  const next = async (): Promise<Entry[]> => {
    if (Date.now() - lastClaim >= claimEveryMs) {
      lastClaim = Date.now();
      await lookForLegacy();
      const entries = await claim();
      if (entries.length > 0) {
        lastClaim = 0;
        return entries;
      }
    }
    const entries = await read(maxBatch);
    if (entries.length === 0) {
      // Every stream empty: poll less often, up to blockMs apart (doubling from 5 ms).
      idlePauseMs = Math.min(Math.max(idlePauseMs * 2, 5), blockMs);
      await sleep(idlePauseMs);
      return [];
    }
    idlePauseMs = 0;
    if (entries.length >= maxBatch || lingerMs <= 0) return entries;
    await sleep(lingerMs);
    return [...entries, ...(await read(maxBatch - entries.length))];
  };

  const loop = async () => {
    while (running) {
      try {
        const entries = await next();
        // At most maxBatch entries per transaction (a poll of every shard may bring more).
        for (let start = 0; start < entries.length; start += maxBatch) await write(entries.slice(start, start + maxBatch));
      } catch (error) {
        if (!running) return;
        if (error instanceof Error && error.message.includes('NOGROUP')) {
          logger.warn('a request-log consumer group is gone (Redis lost its data); creating it again');
          await ensureGroups()
            .then(lookForLegacy)
            .catch(() => undefined);
          continue;
        }
        // Left pending: claimed again once idle, by this worker or another.
        logger.warn({ err: error }, 'writing request records failed; they will be retried');
        await sleep(500);
      }
    }
  };

  await ensureGroups();
  await lookForLegacy();
  const done = loop();
  return {
    async close() {
      running = false;
      await done;
    },
  };
}
