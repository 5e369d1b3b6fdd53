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
import type { Dependencies } from '../src/dependencies';
import { ALL_USAGE_SHARDS, groupBy } from '../src/redis/keys';
import { loadRedisScript, runRedisScript } from '../src/redis/redis-script';
import { parseRequestRecord, type RequestRecord } from '../src/requests/request-record';
import {
  claimIdle,
  consumerName,
  createGroups,
  inBatches,
  isBusyGroup,
  Poll,
  readGroup,
  sleep,
  type Entry as StreamEntry,
  type GroupConsumer,
} from './stream-entries';
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
  /** This worker's consumer of the group `request-log` on each stream named (payload in field `b`). */
  private readonly reader: GroupConsumer<string, Entry>;
  private readonly poll: Poll<Entry>;
  // Whether the unsharded stream exists (looked at on start, after a NOGROUP and with each claim).
  private legacy = false;
  private running = true;
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
    this.reader = {
      redis: deps.redis,
      group: REQUEST_LOG_GROUP,
      consumer: consumerName(),
      field: 'b',
      streamOf: (stream) => stream,
      tag: (entry, stream) => ({ ...entry, stream }),
    };
    this.poll = new Poll({
      maxBatch: this.maxBatch,
      claimEveryMs: Math.max(1_000, Math.floor(this.idleMs / 2)),
      lingerMs: options.lingerMs ?? 50,
      blockMs: options.blockMs ?? 250,
      claim: () => this.claim(),
      read: (count) => readGroup(this.reader, this.streams(), count),
    });
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
    return createGroups(this.deps.redis, this.shardStreams, REQUEST_LOG_GROUP);
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

  /**
   * Entries of every stream that another consumer (a dead worker) held unacknowledged for `idleMs`;
   * first a look at whether the unsharded stream is still there (see lookForLegacy).
   */
  private async claim(): Promise<Entry[]> {
    await this.lookForLegacy();
    return claimIdle(this.reader, this.streams(), this.idleMs, this.maxBatch);
  }

  private async loop(): Promise<void> {
    const { maxBatch } = this;
    while (this.running) {
      try {
        const entries = await this.poll.next();
        // At most maxBatch entries per transaction (a poll of every shard may bring more).
        await inBatches(entries, maxBatch, (batch) => this.write(batch));
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
