/**
 * The API side of settlement: usage events are entries of the Redis usage streams (one per shard,
 * src/redis/keys.ts) that billing workers consume. Normally the settlement script appends a call's
 * event with its counters (`hold`, one round trip); events it could not append, and `record`ed
 * ones, are appended here, coalesced into one pipeline per shard per event-loop tick. Nothing here ever throws into the request path. Every event is
 * also kept in memory until a billing worker confirms it is in PostgreSQL (pub/sub; when a
 * confirmation was missed, its stream entry and PostgreSQL are checked), so a Redis that loses its
 * entries (flush, failover without persistence) gets them appended again. See docs/billing.md.
 */
import type { Dependencies } from '../dependencies';
import { createRedis } from '../redis/connection';
import { byUsageShard } from '../redis/keys';
import { PendingUsageEvents, type PendingState } from './pending-usage-events';
import type { HeldUsageEvent, UsageEvent, UsageRecorder } from './usage-event';

export interface UsageRecorderOptions {
  /** Events held in memory at most (default 100,000); past it the oldest are dropped and logged whole. */
  maxPending?: number;
  /** An appended event not confirmed after this long is looked for in the stream and PostgreSQL (default 10 s). */
  confirmAfterMs?: number;
  /** How often held events are checked (default 2 s). */
  sweepIntervalMs?: number;
  /** `record` resolves at the latest after this long, the event kept in memory (default 1 s). */
  acceptTimeoutMs?: number;
  /** Events per pipeline of appends (default 200) and pipelines in flight at once (default 4). */
  maxBulk?: number;
  maxInFlightBulks?: number;
  /** Pause after a failed enqueue before trying again (default 1 s). */
  retryDelayMs?: number;
  /** Events checked per sweep (default 5,000), this many per round trip (default 500). */
  maxChecksPerSweep?: number;
  checkConcurrency?: number;
  /** On close, how long to wait for unsent events to reach Redis (default 5 s). */
  closeTimeoutMs?: number;
}

export interface UsageRecorderStats {
  /** Events not yet confirmed written by a worker. */
  pending: number;
  /** Events not yet in Redis. */
  unsent: number;
}

export interface UsageRecorderHandle extends UsageRecorder {
  hold(event: UsageEvent): HeldUsageEvent | undefined;
  /** Resolves true once no held event is waiting to reach Redis, false after `timeoutMs`. */
  flush(timeoutMs?: number): Promise<boolean>;
  /** Resolves true once every held event is confirmed written, false after `timeoutMs`. */
  drain(timeoutMs?: number): Promise<boolean>;
  /** Checks the due held events now instead of at the next interval. */
  sweep(): Promise<void>;
  stats(): UsageRecorderStats;
  close(): Promise<void>;
}

type RecorderDependencies = Pick<Dependencies, 'config' | 'redisKeys' | 'logger' | 'clock' | 'subscriber' | 'db'>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export function createUsageRecorder(deps: RecorderDependencies, options: UsageRecorderOptions = {}): UsageRecorderHandle {
  const settings = {
    maxPending: options.maxPending ?? 100_000,
    confirmAfterMs: options.confirmAfterMs ?? 10_000,
    sweepIntervalMs: options.sweepIntervalMs ?? 2_000,
    acceptTimeoutMs: options.acceptTimeoutMs ?? 1_000,
    maxBulk: options.maxBulk ?? 200,
    maxInFlightBulks: options.maxInFlightBulks ?? 4,
    retryDelayMs: options.retryDelayMs ?? 1_000,
    maxChecksPerSweep: options.maxChecksPerSweep ?? 5_000,
    checkConcurrency: options.checkConcurrency ?? 500,
    closeTimeoutMs: options.closeTimeoutMs ?? 5_000,
  };
  const logger = deps.logger.child({ component: 'usage-recorder' });
  const connection = createRedis(deps.config.redis, { name: 'billing-producer' });
  const pending = new PendingUsageEvents(settings.maxPending);
  const channel = deps.redisKeys.billingSettledChannel();
  // record() callers waiting for their event to reach Redis.
  const waiters = new Map<string, () => void>();
  let inFlightBulks = 0;
  let pumpScheduled = false;
  let retryTimer: NodeJS.Timeout | undefined;
  let sweeping: Promise<void> | undefined;
  let closed = false;

  const resolveWaiter = (requestId: string) => {
    const resolve = waiters.get(requestId);
    if (resolve) {
      waiters.delete(requestId);
      resolve();
    }
  };

  const logDropped = (dropped: Array<{ event: UsageEvent; state: PendingState }>) => {
    for (const { event, state } of dropped) {
      resolveWaiter(event.requestId);
      // The whole event goes to the log: an operator can replay it from there.
      if (state === 'enqueued') logger.warn({ usageEvent: event }, 'pending usage events full: forgot an enqueued event (its job is in Redis)');
      else logger.error({ usageEvent: event }, 'pending usage events full: dropped an event never enqueued; replay it from this log line');
    }
  };

  /** One pipeline per shard (on a cluster a pipeline stays in one slot); on one server they leave in one write. */
  const append = async (batch: UsageEvent[]): Promise<Array<string | undefined>> => {
    const entryIds = new Map<UsageEvent, string>();
    await Promise.all([...byUsageShard(batch, (event) => event.accountId)].map(async ([shard, events]) => {
      const pipeline = connection.pipeline();
      for (const event of events) pipeline.xadd(deps.redisKeys.usageStream(shard), '*', 'e', JSON.stringify(event));
      // A shard whose node is away leaves its events unsent; the others' appends stand.
      const results = (await pipeline.exec().catch(() => null)) ?? [];
      events.forEach((event, index) => {
        const [error, id] = results[index] ?? [new Error('no reply')];
        if (!error) entryIds.set(event, String(id));
      });
    }));
    return batch.map((event) => entryIds.get(event));
  };

  const pump = () => {
    pumpScheduled = false;
    while (retryTimer === undefined && inFlightBulks < settings.maxInFlightBulks && pending.unsentCount > 0) {
      const batch = pending.takeUnsent(settings.maxBulk);
      if (batch.length === 0) break;
      inFlightBulks += 1;
      append(batch)
        .then((entryIds) => {
          const sent = batch.filter((_event, index) => entryIds[index] !== undefined);
          pending.markEnqueued(sent.map((event) => event.requestId), deps.clock.now(), entryIds.filter((id) => id !== undefined));
          for (const event of sent) resolveWaiter(event.requestId);
          if (sent.length < batch.length) throw new Error(`${batch.length - sent.length} appends refused`);
        })
        .catch((error: unknown) => {
          const unsent = batch.filter((event) => pending.state(event.requestId) === 'sending').map((event) => event.requestId);
          pending.markUnsent(unsent, deps.clock.now());
          logger.warn({ err: error, events: unsent.length }, 'appending usage events failed; kept in memory, retrying');
          if (retryTimer === undefined) {
            retryTimer = setTimeout(() => { retryTimer = undefined; pump(); }, settings.retryDelayMs);
            retryTimer.unref();
          }
        })
        .finally(() => {
          inFlightBulks -= 1;
          schedulePump();
        });
    }
  };

  const schedulePump = () => {
    if (pumpScheduled || pending.unsentCount === 0) return;
    pumpScheduled = true;
    // One pipeline per tick: events recorded in the same tick share a Redis round trip.
    setImmediate(pump);
  };

  const onMessage = (messageChannel: string, message: string) => {
    if (messageChannel !== channel) return;
    let ids: unknown;
    try { ids = JSON.parse(message); } catch { return; }
    if (!Array.isArray(ids)) return;
    const strings = ids.filter((id): id is string => typeof id === 'string');
    pending.confirm(strings);
    for (const id of strings) resolveWaiter(id);
  };
  deps.subscriber.on('message', onMessage);
  deps.subscriber.subscribe(channel).catch((error: unknown) => logger.warn({ err: error }, 'cannot subscribe to billing confirmations; relying on job-state checks'));

  /**
   * Appended events not confirmed for a while: still in the stream → a worker will get to them;
   * else written in PostgreSQL → confirmed; else Redis lost them → appended again (safe: a worker
   * writes nothing for a request id already in PostgreSQL). Redis is read before PostgreSQL, and a
   * worker deletes an entry only after its commit, so an event is never taken for lost while written.
   */
  const stillInStream = async (requestIds: string[]): Promise<Set<string>> => {
    const found = new Set<string>();
    const groups = byUsageShard(requestIds, (requestId) => pending.event(requestId)?.accountId ?? 0);
    await Promise.all([...groups].map(async ([shard, ids]) => {
      const pipeline = connection.pipeline();
      for (const requestId of ids) {
        const entryId = pending.streamId(requestId) ?? '0-1';
        pipeline.xrange(deps.redisKeys.usageStream(shard), entryId, entryId);
      }
      const results = (await pipeline.exec()) ?? [];
      ids.forEach((requestId, index) => {
        const [error, entries] = results[index] ?? [new Error('no reply')];
        if (error) throw error;
        if (Array.isArray(entries) && entries.length > 0) found.add(requestId);
      });
    }));
    return found;
  };

  const checkBatch = async (requestIds: string[]) => {
    const found = await stillInStream(requestIds);
    const missing: string[] = [];
    for (const requestId of requestIds) {
      if (found.has(requestId)) pending.touch(requestId, deps.clock.now());
      else missing.push(requestId);
    }
    if (missing.length === 0) return;
    const written = await deps.db.query<{ request_id: string }>('SELECT request_id FROM usage_rows WHERE request_id = ANY($1::text[])', [missing]);
    const writtenIds = new Set(written.rows.map((row) => row.request_id));
    pending.confirm([...writtenIds]);
    for (const id of writtenIds) resolveWaiter(id);
    const lost = missing.filter((requestId) => !writtenIds.has(requestId) && pending.state(requestId) === 'enqueued');
    if (lost.length === 0) return;
    logger.warn({ events: lost.length }, 'usage events vanished from Redis before a worker wrote them; appending them again');
    pending.markUnsent(lost, deps.clock.now());
    schedulePump();
  };

  const runSweep = async () => {
    const due = pending.dueForCheck(deps.clock.now(), settings.confirmAfterMs, settings.maxChecksPerSweep);
    for (let start = 0; start < due.length && !closed; start += settings.checkConcurrency) {
      try {
        await checkBatch(due.slice(start, start + settings.checkConcurrency));
      } catch (error) {
        logger.warn({ err: error }, 'checking unconfirmed usage events failed; will check again');
        return;
      }
    }
  };

  const sweep = (): Promise<void> => {
    sweeping ??= runSweep().finally(() => { sweeping = undefined; });
    return sweeping;
  };

  const sweepTimer = setInterval(() => { void sweep(); }, settings.sweepIntervalMs);
  sweepTimer.unref();

  const waitUntil = async (condition: () => boolean, timeoutMs: number, stepMs = 10) => {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() >= deadline) return false;
      await sleep(stepMs);
    }
    return true;
  };

  return {
    hold(event: UsageEvent): HeldUsageEvent | undefined {
      if (closed) return undefined;
      const { added, dropped } = pending.add(event, deps.clock.now(), 'sending');
      logDropped(dropped);
      if (!added) return undefined;
      const notAppended = () => {
        if (pending.state(event.requestId) !== 'sending') return;
        pending.markUnsent([event.requestId], deps.clock.now());
        schedulePump();
      };
      return {
        payload: JSON.stringify(event),
        appended: (entryId) => {
          if (entryId === '') notAppended();
          else pending.markEnqueued([event.requestId], deps.clock.now(), [entryId]);
        },
        notAppended,
      };
    },
    record(event: UsageEvent): Promise<void> {
      try {
        if (closed) {
          logger.error({ usageEvent: event }, 'usage recorder closed: event not enqueued; replay it from this log line');
          return Promise.resolve();
        }
        const { added, dropped } = pending.add(event, deps.clock.now());
        logDropped(dropped);
        if (!added) return Promise.resolve();
        schedulePump();
        return new Promise<void>((resolve) => {
          const timer = setTimeout(() => { waiters.delete(event.requestId); resolve(); }, settings.acceptTimeoutMs);
          timer.unref();
          waiters.set(event.requestId, () => { clearTimeout(timer); resolve(); });
        });
      } catch (error) {
        logger.error({ err: error, usageEvent: event }, 'recording a usage event failed');
        return Promise.resolve();
      }
    },
    flush: (timeoutMs = 10_000) => waitUntil(() => pending.unsentCount === 0 && inFlightBulks === 0, timeoutMs),
    drain: (timeoutMs = 30_000) => waitUntil(() => pending.size === 0, timeoutMs, 25),
    sweep,
    stats: () => ({ pending: pending.size, unsent: pending.unsentCount }),
    async close() {
      if (closed) return;
      const sent = await waitUntil(() => pending.unsentCount === 0 && inFlightBulks === 0, settings.closeTimeoutMs);
      closed = true;
      clearInterval(sweepTimer);
      if (retryTimer) clearTimeout(retryTimer);
      if (!sent) {
        for (const event of pending.takeUnsent(Number.MAX_SAFE_INTEGER)) {
          logger.error({ usageEvent: event }, 'usage recorder closing with an event never enqueued; replay it from this log line');
        }
      }
      for (const resolve of waiters.values()) resolve();
      waiters.clear();
      deps.subscriber.off('message', onMessage);
      await deps.subscriber.unsubscribe(channel).catch(() => undefined);
      await sweeping?.catch(() => undefined);
      connection.disconnect();
    },
  };
}
