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
  const writer = new RequestLogWriter(deps, options);
  await writer.start();
  return writer;
}

/** One worker's consumer of every request-log stream: reads or claims batches, writes them, acknowledges them. */
class RequestLogWriter implements RequestLogWorker {
  private readonly logger: WorkerDependencies['logger'];
  private readonly shardStreams: string[];
  private readonly legacyStream: string;
  private readonly dropDrained = loadRedisScript('drop-drained-stream-1');
  private readonly channel: string;
  private readonly maxBatch: number;
  private readonly idleMs: number;
  private readonly claimEveryMs: number;
  private readonly lingerMs: number;
  private readonly blockMs: number;
  private readonly consumer = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  // Whether the unsharded stream exists (looked at on start, after a NOGROUP and with each claim).
  private legacy = false;
  private running = true;
  private lastClaim = 0;
  private idlePauseMs = 0;
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: WorkerDependencies,
    options: RequestLogWorkerOptions,
  ) {
    const { redisKeys } = deps;
    this.logger = deps.logger.child({ component: 'request-log-worker' });
    this.shardStreams = ALL_USAGE_SHARDS.map((shard) => redisKeys.requestLogStream(shard));
    this.legacyStream = redisKeys.legacyRequestLogStream();
    this.channel = redisKeys.requestLogWrittenChannel();
    this.maxBatch = options.maxBatch ?? 10;
    this.idleMs = options.claimIdleMs ?? 30_000;
    this.claimEveryMs = Math.max(1_000, Math.floor(this.idleMs / 2));
    this.lingerMs = options.lingerMs ?? 50;
    this.blockMs = options.blockMs ?? 250;
  }

  async start(): Promise<void> {
    await this.ensureGroups();
    await this.lookForLegacy();
    this.done = this.loop();
  }

  async close(): Promise<void> {
    this.running = false;
    await this.done;
  }

  private streams(): string[] {
    return this.legacy ? [...this.shardStreams, this.legacyStream] : this.shardStreams;
  }

  private ensureGroups(): Promise<void[]> {
    return Promise.all(
      this.shardStreams.map(async (stream) => {
        try {
          await this.deps.redis.xgroup('CREATE', stream, REQUEST_LOG_GROUP, '0', 'MKSTREAM');
        } catch (error) {
          if (!isBusyGroup(error)) throw error;
        }
      }),
    );
  }

  /** The unsharded stream: read while it exists (no MKSTREAM: it is never created here), deleted once drained. */
  private readonly lookForLegacy = async (): Promise<void> => {
    const { redis } = this.deps;
    try {
      await redis.xgroup('CREATE', this.legacyStream, REQUEST_LOG_GROUP, '0');
      this.legacy = true;
    } catch (error) {
      this.legacy = isBusyGroup(error);
    }
    if (this.legacy && Number(await runRedisScript(redis, this.dropDrained, [this.legacyStream], [REQUEST_LOG_GROUP])) === 1) {
      this.legacy = false;
      this.logger.info('the unsharded request-log stream is drained; deleted');
    }
  };

  private async write(entries: Entry[]): Promise<void> {
    const records: RequestRecord[] = [];
    for (const entry of entries) {
      const parsed = parseEntry(entry);
      records.push(...parsed.records);
      if (parsed.invalid.length > 0) this.logger.error({ invalid: parsed.invalid }, 'malformed request records dropped');
    }
    await writeRequestRecords(this.deps.db, records);
    await this.acknowledge(entries);
    this.announce(records);
  }

  /** Written: acknowledged and deleted. One MULTI per stream: on a cluster each shard's stream is in its own slot. */
  private async acknowledge(entries: Entry[]): Promise<void> {
    await Promise.all(
      [...groupBy(entries, (entry) => entry.stream)].map(async ([stream, group]) => {
        const ids = group.map((entry) => entry.id);
        await this.deps.redis
          .multi()
          .xack(stream, REQUEST_LOG_GROUP, ...ids)
          .xdel(stream, ...ids)
          .exec();
      }),
    );
  }

  /** Only final records are announced: the API process keeps its copy until the final one is written. */
  private announce(records: RequestRecord[]): void {
    const finals = records.filter((record) => !record.provisional).map((record) => record.requestId);
    if (finals.length === 0) return;
    this.deps.redis
      .publish(this.channel, JSON.stringify(finals))
      .catch((error: unknown) =>
        this.logger.warn({ err: error }, 'announcing written request records failed; producers will look for them'),
      );
  }

  /** New entries of every stream, up to `count` each. */
  private async read(count: number): Promise<Entry[]> {
    const { redis } = this.deps;
    const perStream = await Promise.all(
      this.streams().map(async (stream) => {
        const reply = await redis.call('XREADGROUP', 'GROUP', REQUEST_LOG_GROUP, this.consumer, 'COUNT', count, 'STREAMS', stream, '>');
        const [first] = Array.isArray(reply) ? reply : [];
        return entriesOf(stream, Array.isArray(first) ? first[1] : undefined);
      }),
    );
    return perStream.flat();
  }

  /** Entries of every stream that another consumer (a dead worker) held unacknowledged for `idleMs`. */
  private async claim(): Promise<Entry[]> {
    const { redis } = this.deps;
    const perStream = await Promise.all(
      this.streams().map(async (stream) => {
        const claimed = await redis.call(
          'XAUTOCLAIM',
          stream,
          REQUEST_LOG_GROUP,
          this.consumer,
          this.idleMs,
          '0-0',
          'COUNT',
          this.maxBatch,
        );
        return entriesOf(stream, Array.isArray(claimed) ? claimed[1] : undefined);
      }),
    );
    return perStream.flat();
  }

  private async next(): Promise<Entry[]> {
    if (Date.now() - this.lastClaim >= this.claimEveryMs) {
      this.lastClaim = Date.now();
      await this.lookForLegacy();
      const entries = await this.claim();
      if (entries.length > 0) {
        this.lastClaim = 0;
        return entries;
      }
    }
    const entries = await this.read(this.maxBatch);
    if (entries.length === 0) {
      // Every stream empty: poll less often, up to blockMs apart (doubling from 5 ms).
      this.idlePauseMs = Math.min(Math.max(this.idlePauseMs * 2, 5), this.blockMs);
      await sleep(this.idlePauseMs);
      return [];
    }
    this.idlePauseMs = 0;
    if (entries.length >= this.maxBatch || this.lingerMs <= 0) return entries;
    await sleep(this.lingerMs);
    return [...entries, ...(await this.read(this.maxBatch - entries.length))];
  }

  private async loop(): Promise<void> {
    const { maxBatch } = this;
    while (this.running) {
      try {
        const entries = await this.next();
        // At most maxBatch entries per transaction (a poll of every shard may bring more).
        for (let start = 0; start < entries.length; start += maxBatch) await this.write(entries.slice(start, start + maxBatch));
      } catch (error) {
        if (!this.running) return;
        if (error instanceof Error && error.message.includes('NOGROUP')) {
          this.logger.warn('a request-log consumer group is gone (Redis lost its data); creating it again');
          await this.ensureGroups()
            .then(this.lookForLegacy)
            .catch(() => undefined);
          continue;
        }
        // Left pending: claimed again once idle, by this worker or another.
        this.logger.warn({ err: error }, 'writing request records failed; they will be retried');
        await sleep(500);
      }
    }
  }
}
