/**
 * Reading the durable streams through a consumer group, as the billing worker (usage events) and the
 * request-log worker (request records) both do: one stream per shard, every shard read at once (one
 * command per stream: on a cluster each shard lives in its own slot), entries claimed from a dead
 * consumer once idle, and the pause between polls of empty streams growing up to a bound. What each
 * worker does with its entries (transactions, dead letters, the legacy stream) stays in the worker.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';

/** Entries of the durable streams: one JSON payload in field `e` (a usage event), or `b` (a JSON array of request records). */
export interface Entry {
  id: string;
  payload: string | undefined;
}

/** `[id, [field, value, …]]` rows of XREADGROUP / XAUTOCLAIM; a deleted entry may come with no fields. */
function toEntries(rows: unknown, field: string): Entry[] {
  if (!Array.isArray(rows)) return [];
  return rows.map((row: unknown) => {
    const [id, fields] = Array.isArray(row) ? row : [];
    const list = Array.isArray(fields) ? fields.map(String) : [];
    const at = list.indexOf(field);
    return { id: String(id), payload: at >= 0 ? list[at + 1] : undefined };
  });
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A consumer name unique to this process and this worker in it. */
export function consumerName(): string {
  return `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

export function isBusyGroup(error: unknown): boolean {
  return error instanceof Error && error.message.includes('BUSYGROUP');
}

/** The group on each stream (created with its stream, MKSTREAM), all at once; a group already there (BUSYGROUP) is fine. */
export function createGroups(redis: Redis, streams: readonly string[], group: string): Promise<void[]> {
  return Promise.all(
    streams.map(async (stream) => {
      try {
        await redis.xgroup('CREATE', stream, group, '0', 'MKSTREAM');
      } catch (error) {
        if (!isBusyGroup(error)) throw error;
      }
    }),
  );
}

/**
 * One consumer of a group over several sources (a shard, a stream name): `streamOf` names a source's
 * stream, `field` the entry field holding the payload, and `tag` marks each entry with its source.
 */
export interface GroupConsumer<S, E extends Entry> {
  redis: Redis;
  group: string;
  consumer: string;
  field: string;
  streamOf(source: S): string;
  tag(entry: Entry, source: S): E;
}

/** New entries of every source's stream (`>`), or the consumer's own unacknowledged ones (`0`), up to `count` each. */
export async function readGroup<S, E extends Entry>(
  reader: GroupConsumer<S, E>,
  sources: readonly S[],
  count: number,
  from: '>' | '0' = '>',
): Promise<E[]> {
  const { redis, group, consumer, field } = reader;
  const perSource = await Promise.all(
    sources.map(async (source) => {
      const reply = await redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', count, 'STREAMS', reader.streamOf(source), from);
      const [first] = Array.isArray(reply) ? reply : [];
      return toEntries(Array.isArray(first) ? first[1] : undefined, field).map((entry) => reader.tag(entry, source));
    }),
  );
  return perSource.flat();
}

/** Entries of every source's stream that another consumer (a dead worker) held unacknowledged for `idleMs`, up to `count` each. */
export async function claimIdle<S, E extends Entry>(
  reader: GroupConsumer<S, E>,
  sources: readonly S[],
  idleMs: number,
  count: number,
): Promise<E[]> {
  const { redis, group, consumer, field } = reader;
  const perSource = await Promise.all(
    sources.map(async (source) => {
      const claimed = await redis.call('XAUTOCLAIM', reader.streamOf(source), group, consumer, idleMs, '0-0', 'COUNT', count);
      return toEntries(Array.isArray(claimed) ? claimed[1] : undefined, field).map((entry) => reader.tag(entry, source));
    }),
  );
  return perSource.flat();
}

export interface PollOptions<E> {
  /** Entries per transaction at most: a read asks each stream for this many. */
  maxBatch: number;
  /** How often idle entries of other consumers are claimed. */
  claimEveryMs: number;
  /** After a read that did not fill a batch, how long to wait for more. */
  lingerMs: number;
  /** Longest pause between polls while every stream is empty. */
  blockMs: number;
  /** Idle entries of other consumers (see `claimIdle`). */
  claim(): Promise<E[]>;
  /** New entries, up to `count` per stream (see `readGroup`). */
  read(count: number): Promise<E[]>;
}

/**
 * The entries of one poll: claimed ones when a claim is due and finds some, else new ones (with a
 * little patience when they did not fill a batch). While every stream is empty the polls come less
 * often: the pause doubles from 5 ms up to `blockMs`, and is back to nothing once entries come.
 */
export class Poll<E> {
  private lastClaim = 0;
  private idlePauseMs = 0;

  constructor(private readonly options: PollOptions<E>) {}

  async next(): Promise<E[]> {
    const { maxBatch, claimEveryMs, lingerMs, blockMs } = this.options;
    if (Date.now() - this.lastClaim >= claimEveryMs) {
      this.lastClaim = Date.now();
      const entries = await this.options.claim();
      if (entries.length > 0) {
        this.lastClaim = 0; // more may be waiting: claim again next round
        return entries;
      }
    }
    const entries = await this.options.read(maxBatch);
    if (entries.length === 0) {
      // Every stream empty: poll less often, up to blockMs apart (doubling from 5 ms).
      this.idlePauseMs = Math.min(Math.max(this.idlePauseMs * 2, 5), blockMs);
      await sleep(this.idlePauseMs);
      return [];
    }
    this.idlePauseMs = 0;
    if (entries.length >= maxBatch || lingerMs <= 0) return entries;
    // A little patience fills the batch: many entries per transaction is what makes writing them cheap.
    await sleep(lingerMs);
    return [...entries, ...(await this.options.read(maxBatch - entries.length))];
  }
}

/** At most `size` entries per call of `each`, in order (a poll of every shard may bring more). */
export async function inBatches<E>(entries: E[], size: number, each: (batch: E[]) => Promise<void>): Promise<void> {
  for (let start = 0; start < entries.length; start += size) await each(entries.slice(start, start + size));
}
