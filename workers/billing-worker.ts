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
import { settleUsageEvents } from '../src/billing/settle-usage-events';
import type { SettlementOutcome } from '../src/db/repositories/ledger';
import type { UsageEvent } from '../src/billing/usage-event';
import { parseUsageEvent } from '../src/billing/usage-event-schema';
import type { Dependencies } from '../src/dependencies';
import { failedDependency } from '../src/errors/dependency-failure';
import { ALL_USAGE_SHARDS, groupBy } from '../src/redis/keys';
import {
  claimIdle,
  consumerName,
  createGroups,
  inBatches,
  Poll,
  readGroup,
  sleep,
  type Entry as StreamEntry,
  type GroupConsumer,
} from './stream-entries';

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

interface Entry extends StreamEntry {
  shard: number;
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

/** One billing worker: its consumer name, its polling state, and the settle loop over every shard. */
class UsageSettler {
  private readonly logger: WorkerDependencies['logger'];
  private readonly channel: string;
  private readonly maxBatch: number;
  private readonly idleMs: number;
  /** This worker's consumer of the group `billing` on every shard's usage stream (payload in field `e`). */
  private readonly reader: GroupConsumer<number, Entry>;
  private readonly poll: Poll<Entry>;
  private running = true;
  /**
   * After a failed command (a failover), entries may be ours without our knowing: a read whose reply
   * was lost, an acknowledgement that did not reach the new primary. Read our own pending ones first
   * instead of leaving them to a claim after `idleMs`.
   */
  private ownPendingUnknown = false;
  private done: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: WorkerDependencies,
    private readonly options: BillingWorkerOptions,
  ) {
    this.logger = deps.logger.child({ component: 'billing-worker' });
    this.channel = deps.redisKeys.billingSettledChannel();
    this.maxBatch = options.maxBatch ?? options.concurrency;
    this.idleMs = options.lockDurationMs ?? 30_000;
    this.reader = {
      redis: deps.redis,
      group: BILLING_GROUP,
      consumer: consumerName(),
      field: 'e',
      streamOf: (shard) => deps.redisKeys.usageStream(shard),
      tag: (entry, shard) => ({ ...entry, shard }),
    };
    this.poll = new Poll({
      maxBatch: this.maxBatch,
      claimEveryMs: options.stalledIntervalMs ?? Math.max(1_000, Math.floor(this.idleMs / 2)),
      lingerMs: options.lingerMs ?? 5,
      blockMs: options.blockMs ?? 100,
      claim: () => claimIdle(this.reader, ALL_USAGE_SHARDS, this.idleMs, this.maxBatch),
      read: (count) => this.read(count),
    });
  }

  async start(): Promise<void> {
    await this.ensureGroups();
    this.done = this.loop();
  }

  /** The batch in hand commits and is acknowledged; an idle pause ends within `blockMs`. */
  async close(): Promise<void> {
    this.running = false;
    await this.done;
  }

  private ensureGroups(): Promise<void[]> {
    return createGroups(
      this.deps.redis,
      ALL_USAGE_SHARDS.map((shard) => this.deps.redisKeys.usageStream(shard)),
      BILLING_GROUP,
    );
  }

  /**
   * Done with these entries: acknowledged and deleted (the streams hold only unsettled events), their
   * payloads first copied to their shard's dead-letter stream when `deadLetter`. One MULTI per shard.
   */
  private async finish(entries: Entry[], deadLetter = false): Promise<void> {
    const { redis, redisKeys } = this.deps;
    await Promise.all(
      [...groupBy(entries, (entry) => entry.shard)].map(async ([shard, group]) => {
        const stream = redisKeys.usageStream(shard);
        const ids = group.map((entry) => entry.id);
        const multi = redis.multi();
        if (deadLetter)
          for (const entry of group)
            if (entry.payload !== undefined) multi.xadd(redisKeys.usageDeadLetters(shard), '*', 'e', entry.payload);
        multi.xack(stream, BILLING_GROUP, ...ids).xdel(stream, ...ids);
        await multi.exec();
      }),
    );
  }

  /** Written, or set aside for good: either way the API processes may forget these events. */
  private announce(outcomes: Array<Pick<SettlementOutcome, 'requestId'>>): void {
    if (outcomes.length === 0) return;
    this.deps.redis
      .publish(this.channel, JSON.stringify(outcomes.map((outcome) => outcome.requestId)))
      .catch((error: unknown) => this.logger.warn({ err: error }, 'announcing settled usage failed; producers will look for their events'));
  }

  private async settleOneByOne(batch: Array<{ entry: Entry; event: UsageEvent }>): Promise<void> {
    for (const [index, item] of batch.entries()) {
      try {
        this.announce(await settleUsageEvents(this.deps.db, [item.event], { beforeCommit: this.options.beforeCommit }));
        await this.finish([item.entry]);
      } catch (error) {
        if (isPermanent(error)) {
          this.logger.error({ err: error, usageEvent: item.event }, 'usage event failed for good; kept in the dead-letter stream');
          await this.finish([item.entry], true);
          this.announce([item.event]);
        } else if (failedDependency(error) === 'postgres') {
          // PostgreSQL is away: the rest would fail the same way (a connection attempt and a log line
          // each). All stay pending and are claimed again once idle, when it may be back.
          this.logger.warn(
            { err: error, events: batch.length - index },
            'PostgreSQL unavailable; usage events left pending, claimed again once idle',
          );
          return;
        } else {
          // Left pending: claimed again once idle, by this worker or another.
          this.logger.warn({ err: error, requestId: item.event.requestId }, 'settling a usage event failed; it will be retried');
        }
      }
    }
  }

  private async settle(entries: Entry[]): Promise<void> {
    const malformed: Entry[] = [];
    const batch: Array<{ entry: Entry; event: UsageEvent }> = [];
    for (const entry of entries) {
      let parsed: ReturnType<typeof parseUsageEvent> | undefined;
      try {
        parsed = entry.payload === undefined ? undefined : parseUsageEvent(JSON.parse(entry.payload));
      } catch {
        parsed = undefined;
      }
      if (parsed && 'event' in parsed) batch.push({ entry, event: parsed.event });
      else malformed.push(entry);
    }
    if (malformed.length > 0) {
      this.logger.error({ entries: malformed }, 'malformed usage entries; kept in the dead-letter stream');
      await this.finish(malformed, true);
      this.announce(
        malformed.flatMap((entry) => {
          const requestId = requestIdOf(entry.payload);
          return requestId === undefined ? [] : [{ requestId }];
        }),
      );
    }
    if (batch.length === 0) return;
    try {
      this.announce(
        await settleUsageEvents(
          this.deps.db,
          batch.map((item) => item.event),
          { beforeCommit: this.options.beforeCommit },
        ),
      );
      await this.finish(batch.map((item) => item.entry));
    } catch (error) {
      if (batch.length > 1)
        this.logger.warn({ err: error, events: batch.length }, 'batch settlement failed; settling its events one by one');
      await this.settleOneByOne(batch);
    }
  }

  /** New entries of every shard (`>`), or this consumer's own unacknowledged ones (`0`), up to `count` each. */
  private read(count: number, from: '>' | '0' = '>'): Promise<Entry[]> {
    return readGroup(this.reader, ALL_USAGE_SHARDS, count, from);
  }

  /** Claimed or new entries (see Poll), but first this consumer's own pending ones after a failure. */
  private async next(): Promise<Entry[]> {
    if (this.ownPendingUnknown) {
      // Once per failure (entries that fail again wait for the claim, as before).
      const own = await this.read(this.maxBatch, '0');
      this.ownPendingUnknown = false;
      if (own.length > 0) return own;
    }
    return this.poll.next();
  }

  private async loop(): Promise<void> {
    while (this.running) {
      try {
        const entries = await this.next();
        // At most maxBatch entries per transaction (a poll of every shard may bring more).
        if (entries.length > 0) await inBatches(entries, this.maxBatch, (batch) => this.settle(batch));
      } catch (error) {
        if (!this.running) return;
        if (error instanceof Error && error.message.includes('NOGROUP')) {
          // Redis lost the stream and its group: the API processes append their unconfirmed events again.
          this.logger.warn('the billing consumer group is gone (Redis lost its data); creating it again');
          await this.ensureGroups().catch(() => undefined);
          continue;
        }
        this.ownPendingUnknown = true;
        this.logger.warn({ err: error }, 'reading the usage stream failed; retrying');
        await sleep(500);
      }
    }
  }
}

export async function startBillingWorker(deps: WorkerDependencies, options: BillingWorkerOptions): Promise<BillingWorker> {
  const settler = new UsageSettler(deps, options);
  await settler.start();
  return { close: () => settler.close() };
}
