/**
 * The billing worker: reads the usage streams of every shard (appended by the settlement script, see
 * src/billing/charge-call.ts and src/redis/keys.ts) through the consumer group `billing` of each, in
 * batches: a poll reads every shard at once (one command per shard: on a cluster each shard lives in
 * its own slot), and while all are empty the worker polls less often, up to `blockMs` apart; the entries in hand
 * (up to `maxBatch`) share ONE PostgreSQL transaction; if it fails, each event is tried alone so one
 * bad event cannot hold back the others. An entry is acknowledged and deleted only after its
 * transaction committed, so a worker killed at any point loses nothing: its entries stay pending in
 * the group and another worker (or itself, restarted) claims them once idle (XAUTOCLAIM), and the
 * unique request id makes the retry write nothing twice. After each commit the written request ids
 * are announced on pub/sub for the API processes (see create-usage-recorder). When Redis lost the
 * group (flush, restart without persistence: NOGROUP), it is created again on every shard.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { settleUsageEvents } from '../src/billing/settle-usage-events';
import type { SettlementOutcome } from '../src/db/repositories/ledger';
import type { UsageEvent } from '../src/billing/usage-event';
import { parseUsageEvent } from '../src/billing/usage-event-schema';
import type { Dependencies } from '../src/dependencies';
import { failedDependency } from '../src/errors/dependency-failure';
import { ALL_USAGE_SHARDS, groupBy } from '../src/redis/keys';
import { toEntries as readEntries, type Entry as StreamEntry } from './stream-entries';

export interface BillingWorkerOptions {
  /** Default batch size (entries read at once). */
  concurrency: number;
  /** Entries per transaction at most (default: concurrency). */
  maxBatch?: number;
  /** An entry a worker holds unacknowledged this long is taken over by another (default 30 s). */
  lockDurationMs?: number;
  /** How often idle entries of other consumers are claimed (default: half the lock duration). */
  stalledIntervalMs?: number;
  /** After a read that did not fill a batch, how long to wait for more before settling (default 5 ms; the worker process passes `BILLING_LINGER_MS`). */
  lingerMs?: number;
  /** Longest pause between polls of the shards while all are empty (default 100 ms; also bounds how fast close() returns). */
  blockMs?: number;
  /** Test seam: runs inside each batch transaction just before COMMIT. */
  beforeCommit?: () => Promise<void>;
}

export interface BillingWorker {
  close(): Promise<void>;
}

type WorkerDependencies = Pick<Dependencies, 'config' | 'db' | 'redis' | 'redisKeys' | 'logger'>;

export const BILLING_GROUP = 'billing';

/** PostgreSQL errors that retrying cannot fix: the account is gone (23503), a value is out of range. */
const PERMANENT_PG_CODES = new Set(['23503', '22003', '22P02']);

function isPermanent(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && PERMANENT_PG_CODES.has(code);
}

interface Entry extends StreamEntry { shard: number }

/** A shard's `[id, [field, value, …]]` rows of XREADGROUP / XAUTOCLAIM, each entry marked with its shard. */
function toEntries(shard: number, rows: unknown): Entry[] {
  return readEntries(rows).map((entry) => ({ ...entry, shard }));
}

/** The request id of an entry that is not a valid event, if it has one. */
function requestIdOf(payload: string | undefined): string | undefined {
  try {
    const value: unknown = JSON.parse(payload ?? '');
    const requestId = value !== null && typeof value === 'object' ? (value as { requestId?: unknown }).requestId : undefined;
    return typeof requestId === 'string' ? requestId : undefined;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export async function startBillingWorker(deps: WorkerDependencies, options: BillingWorkerOptions): Promise<BillingWorker> {
  const logger = deps.logger.child({ component: 'billing-worker' });
  const channel = deps.redisKeys.billingSettledChannel();
  const maxBatch = options.maxBatch ?? options.concurrency;
  const idleMs = options.lockDurationMs ?? 30_000;
  const claimEveryMs = options.stalledIntervalMs ?? Math.max(1_000, Math.floor(idleMs / 2));
  const consumer = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  const ensureGroups = () => Promise.all(ALL_USAGE_SHARDS.map(async (shard) => {
    try {
      await deps.redis.xgroup('CREATE', deps.redisKeys.usageStream(shard), BILLING_GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('BUSYGROUP')) throw error;
    }
  }));

  /**
   * Done with these entries: acknowledged and deleted (the streams hold only unsettled events), their
   * payloads first copied to their shard's dead-letter stream when `deadLetter`. One MULTI per shard.
   */
  const finish = (entries: Entry[], deadLetter = false) => Promise.all([...groupBy(entries, (entry) => entry.shard)].map(async ([shard, group]) => {
    const stream = deps.redisKeys.usageStream(shard);
    const ids = group.map((entry) => entry.id);
    const multi = deps.redis.multi();
    if (deadLetter) for (const entry of group) if (entry.payload !== undefined) multi.xadd(deps.redisKeys.usageDeadLetters(shard), '*', 'e', entry.payload);
    multi.xack(stream, BILLING_GROUP, ...ids).xdel(stream, ...ids);
    await multi.exec();
  }));

  /** Written, or set aside for good: either way the API processes may forget these events. */
  const announce = (outcomes: Array<Pick<SettlementOutcome, 'requestId'>>) => {
    if (outcomes.length === 0) return;
    deps.redis.publish(channel, JSON.stringify(outcomes.map((outcome) => outcome.requestId)))
      .catch((error: unknown) => logger.warn({ err: error }, 'announcing settled usage failed; producers will look for their events'));
  };

  const settleOneByOne = async (batch: Array<{ entry: Entry; event: UsageEvent }>) => {
    for (const [index, item] of batch.entries()) {
      try {
        announce(await settleUsageEvents(deps.db, [item.event], { beforeCommit: options.beforeCommit }));
        await finish([item.entry]);
      } catch (error) {
        if (isPermanent(error)) {
          logger.error({ err: error, usageEvent: item.event }, 'usage event failed for good; kept in the dead-letter stream');
          await finish([item.entry], true);
          announce([item.event]);
        } else if (failedDependency(error) === 'postgres') {
          // PostgreSQL is away: the rest would fail the same way (a connection attempt and a log line
          // each). All stay pending and are claimed again once idle, when it may be back.
          logger.warn({ err: error, events: batch.length - index }, 'PostgreSQL unavailable; usage events left pending, claimed again once idle');
          return;
        } else {
          // Left pending: claimed again once idle, by this worker or another.
          logger.warn({ err: error, requestId: item.event.requestId }, 'settling a usage event failed; it will be retried');
        }
      }
    }
  };

  const settle = async (entries: Entry[]) => {
    const malformed: Entry[] = [];
    const batch: Array<{ entry: Entry; event: UsageEvent }> = [];
    for (const entry of entries) {
      let parsed: ReturnType<typeof parseUsageEvent> | undefined;
      try { parsed = entry.payload === undefined ? undefined : parseUsageEvent(JSON.parse(entry.payload)); } catch { parsed = undefined; }
      if (parsed && 'event' in parsed) batch.push({ entry, event: parsed.event });
      else malformed.push(entry);
    }
    if (malformed.length > 0) {
      logger.error({ entries: malformed }, 'malformed usage entries; kept in the dead-letter stream');
      await finish(malformed, true);
      announce(malformed.flatMap((entry) => {
        const requestId = requestIdOf(entry.payload);
        return requestId === undefined ? [] : [{ requestId }];
      }));
    }
    if (batch.length === 0) return;
    try {
      announce(await settleUsageEvents(deps.db, batch.map((item) => item.event), { beforeCommit: options.beforeCommit }));
      await finish(batch.map((item) => item.entry));
    } catch (error) {
      if (batch.length > 1) logger.warn({ err: error, events: batch.length }, 'batch settlement failed; settling its events one by one');
      await settleOneByOne(batch);
    }
  };

  /** New entries of every shard (`>`), or this consumer's own unacknowledged ones (`0`), up to `count` each. */
  const read = async (count: number, from: '>' | '0' = '>'): Promise<Entry[]> => (await Promise.all(ALL_USAGE_SHARDS.map(async (shard) => {
    const reply = await deps.redis.call('XREADGROUP', 'GROUP', BILLING_GROUP, consumer, 'COUNT', count, 'STREAMS', deps.redisKeys.usageStream(shard), from);
    const [first] = Array.isArray(reply) ? reply : [];
    return toEntries(shard, Array.isArray(first) ? first[1] : undefined);
  }))).flat();

  /** Entries of every shard that another consumer (a dead worker) held unacknowledged for `idleMs`. */
  const claim = async (): Promise<Entry[]> => (await Promise.all(ALL_USAGE_SHARDS.map(async (shard) => {
    const claimed = await deps.redis.call('XAUTOCLAIM', deps.redisKeys.usageStream(shard), BILLING_GROUP, consumer, idleMs, '0-0', 'COUNT', maxBatch);
    return toEntries(shard, Array.isArray(claimed) ? claimed[1] : undefined);
  }))).flat();

  let running = true;
  let lastClaim = 0;
  let idlePauseMs = 0;
  // After a failed command (a failover), entries may be ours without our knowing: a read whose reply
  // was lost, an acknowledgement that did not reach the new primary. Read our own pending ones first
  // instead of leaving them to a claim after `idleMs`.
  let ownPendingUnknown = false;
  const next = async (): Promise<Entry[]> => {
    if (ownPendingUnknown) {
      // Once per failure (entries that fail again wait for the claim, as before).
      const own = await read(maxBatch, '0');
      ownPendingUnknown = false;
      if (own.length > 0) return own;
    }
    if (Date.now() - lastClaim >= claimEveryMs) {
      lastClaim = Date.now();
      const entries = await claim();
      if (entries.length > 0) {
        lastClaim = 0; // more may be waiting: claim again next round
        return entries;
      }
    }
    const entries = await read(maxBatch);
    if (entries.length === 0) {
      // All shards empty: poll less often, up to blockMs apart (doubling from 5 ms).
      idlePauseMs = Math.min(Math.max(idlePauseMs * 2, 5), options.blockMs ?? 100);
      await sleep(idlePauseMs);
      return [];
    }
    idlePauseMs = 0;
    const lingerMs = options.lingerMs ?? 5;
    if (entries.length >= maxBatch || lingerMs <= 0) return entries;
    // A little patience fills the batch: many events per transaction is what makes settling cheap.
    await sleep(lingerMs);
    return [...entries, ...await read(maxBatch - entries.length)];
  };

  /** At most maxBatch entries per transaction (a poll of every shard may bring more). */
  const settleAll = async (entries: Entry[]) => {
    for (let start = 0; start < entries.length; start += maxBatch) await settle(entries.slice(start, start + maxBatch));
  };

  const loop = async () => {
    while (running) {
      try {
        const entries = await next();
        if (entries.length > 0) await settleAll(entries);
      } catch (error) {
        if (!running) return;
        if (error instanceof Error && error.message.includes('NOGROUP')) {
          // Redis lost the stream and its group: the API processes append their unconfirmed events again.
          logger.warn('the billing consumer group is gone (Redis lost its data); creating it again');
          await ensureGroups().catch(() => undefined);
          continue;
        }
        ownPendingUnknown = true;
        logger.warn({ err: error }, 'reading the usage stream failed; retrying');
        await sleep(500);
      }
    }
  };

  await ensureGroups();
  const done = loop();

  return {
    async close() {
      // The batch in hand commits and is acknowledged; an idle pause ends within `blockMs`.
      running = false;
      await done;
    },
  };
}
