/**
 * The billing worker: reads the usage stream (appended by the settlement script, see
 * src/billing/charge-call.ts) through the consumer group `billing`, in batches: the entries in hand
 * (up to `maxBatch`) share ONE PostgreSQL transaction; if it fails, each event is tried alone so one
 * bad event cannot hold back the others. An entry is acknowledged and deleted only after its
 * transaction committed, so a worker killed at any point loses nothing: its entries stay pending in
 * the group and another worker (or itself, restarted) claims them once idle (XAUTOCLAIM), and the
 * unique request id makes the retry write nothing twice. After each commit the written request ids
 * are announced on pub/sub for the API processes (see create-usage-recorder). When Redis lost the
 * group (flush, restart without persistence: NOGROUP), it is created again.
 */
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { settleUsageEvents, type SettlementOutcome } from '../src/billing/settle-usage-events';
import type { UsageEvent } from '../src/billing/usage-event';
import { parseUsageEvent } from '../src/billing/usage-event-schema';
import type { Dependencies } from '../src/dependencies';
import { failedDependency } from '../src/errors/dependency-failure';
import { createRedis } from '../src/redis/connection';
import { toEntries, type Entry } from './stream-entries';

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
  /** How long one read waits for new entries (default 1 s; also bounds how fast close() returns). */
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
  const stream = deps.redisKeys.usageStream();
  const maxBatch = options.maxBatch ?? options.concurrency;
  const idleMs = options.lockDurationMs ?? 30_000;
  const claimEveryMs = options.stalledIntervalMs ?? Math.max(1_000, Math.floor(idleMs / 2));
  const consumer = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
  // Blocking reads get their own connection so they never delay the acknowledgements.
  // XREADGROUP BLOCK outlives the request path's command timeout.
  const reader = createRedis(deps.config.redisUrl, { waits: true, name: 'billing-worker' });

  const ensureGroup = async () => {
    try {
      await deps.redis.xgroup('CREATE', stream, BILLING_GROUP, '0', 'MKSTREAM');
    } catch (error) {
      if (!(error instanceof Error) || !error.message.includes('BUSYGROUP')) throw error;
    }
  };

  /** Done with these entries: acknowledged and deleted (the stream holds only unsettled events). */
  const finish = async (ids: string[], deadLetters: string[] = []) => {
    if (ids.length === 0) return;
    const multi = deps.redis.multi();
    for (const payload of deadLetters) multi.xadd(deps.redisKeys.usageDeadLetters(), '*', 'e', payload);
    multi.xack(stream, BILLING_GROUP, ...ids).xdel(stream, ...ids);
    await multi.exec();
  };

  /** Written, or set aside for good: either way the API processes may forget these events. */
  const announce = (outcomes: Array<Pick<SettlementOutcome, 'requestId'>>) => {
    if (outcomes.length === 0) return;
    deps.redis.publish(channel, JSON.stringify(outcomes.map((outcome) => outcome.requestId)))
      .catch((error: unknown) => logger.warn({ err: error }, 'announcing settled usage failed; producers will look for their events'));
  };

  const settleOneByOne = async (batch: Array<{ id: string; event: UsageEvent; payload: string }>) => {
    for (const [index, item] of batch.entries()) {
      try {
        announce(await settleUsageEvents(deps.db, [item.event], { beforeCommit: options.beforeCommit }));
        await finish([item.id]);
      } catch (error) {
        if (isPermanent(error)) {
          logger.error({ err: error, usageEvent: item.event }, 'usage event failed for good; kept in the dead-letter stream');
          await finish([item.id], [item.payload]);
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
    const batch: Array<{ id: string; event: UsageEvent; payload: string }> = [];
    for (const entry of entries) {
      let parsed: ReturnType<typeof parseUsageEvent> | undefined;
      try { parsed = entry.payload === undefined ? undefined : parseUsageEvent(JSON.parse(entry.payload)); } catch { parsed = undefined; }
      if (parsed && 'event' in parsed) batch.push({ id: entry.id, event: parsed.event, payload: entry.payload ?? '' });
      else malformed.push(entry);
    }
    if (malformed.length > 0) {
      logger.error({ entries: malformed }, 'malformed usage entries; kept in the dead-letter stream');
      await finish(malformed.map((entry) => entry.id), malformed.flatMap((entry) => (entry.payload === undefined ? [] : [entry.payload])));
      announce(malformed.flatMap((entry) => {
        const requestId = requestIdOf(entry.payload);
        return requestId === undefined ? [] : [{ requestId }];
      }));
    }
    if (batch.length === 0) return;
    try {
      announce(await settleUsageEvents(deps.db, batch.map((item) => item.event), { beforeCommit: options.beforeCommit }));
      await finish(batch.map((item) => item.id));
    } catch (error) {
      if (batch.length > 1) logger.warn({ err: error, events: batch.length }, 'batch settlement failed; settling its events one by one');
      await settleOneByOne(batch);
    }
  };

  const read = async (count: number, blockMs: number | undefined): Promise<Entry[]> => {
    const block = blockMs === undefined ? [] : ['BLOCK', blockMs];
    const reply = await reader.call('XREADGROUP', 'GROUP', BILLING_GROUP, consumer, 'COUNT', count, ...block, 'STREAMS', stream, '>');
    const [first] = Array.isArray(reply) ? reply : [];
    return toEntries(Array.isArray(first) ? first[1] : undefined);
  };

  let running = true;
  let lastClaim = 0;
  const next = async (): Promise<Entry[]> => {
    if (Date.now() - lastClaim >= claimEveryMs) {
      lastClaim = Date.now();
      const claimed = await deps.redis.call('XAUTOCLAIM', stream, BILLING_GROUP, consumer, idleMs, '0-0', 'COUNT', maxBatch);
      const entries = toEntries(Array.isArray(claimed) ? claimed[1] : undefined);
      if (entries.length > 0) {
        lastClaim = 0; // more may be waiting: claim again next round
        return entries;
      }
    }
    const entries = await read(maxBatch, options.blockMs ?? 1_000);
    const lingerMs = options.lingerMs ?? 5;
    if (entries.length === 0 || entries.length >= maxBatch || lingerMs <= 0) return entries;
    // A little patience fills the batch: many events per transaction is what makes settling cheap.
    await sleep(lingerMs);
    return [...entries, ...await read(maxBatch - entries.length, undefined)];
  };

  const loop = async () => {
    while (running) {
      try {
        const entries = await next();
        if (entries.length > 0) await settle(entries);
      } catch (error) {
        if (!running) return;
        if (error instanceof Error && error.message.includes('NOGROUP')) {
          // Redis lost the stream and its group: the API processes append their unconfirmed events again.
          logger.warn('the billing consumer group is gone (Redis lost its data); creating it again');
          await ensureGroup().catch(() => undefined);
          continue;
        }
        logger.warn({ err: error }, 'reading the usage stream failed; retrying');
        await sleep(500);
      }
    }
  };

  await ensureGroup();
  const done = loop();

  return {
    async close() {
      // The batch in hand commits and is acknowledged; the blocked read ends within `blockMs`.
      running = false;
      await done;
      reader.disconnect();
    },
  };
}
