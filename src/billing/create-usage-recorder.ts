/**
 * The API side of settlement: usage events become BullMQ `billing` jobs (job id = request id, so
 * enqueueing is idempotent), coalesced into one bulk add per event-loop tick. Nothing here ever
 * throws into the request path. Every event is also kept in memory until a billing worker confirms
 * it is in PostgreSQL (pub/sub, or the job's state when a confirmation was missed), so a Redis that
 * loses its jobs (flush, failover without persistence) gets them enqueued again. See docs/billing.md.
 */
import { Queue } from 'bullmq';
import type { Dependencies } from '../dependencies';
import { createRedis } from '../redis/connection';
import { BILLING_QUEUE_NAME, USAGE_JOB_NAME, USAGE_JOB_OPTIONS } from './billing-queue';
import { PendingUsageEvents, type PendingState } from './pending-usage-events';
import type { UsageEvent, UsageRecorder } from './usage-event';

export interface UsageRecorderOptions {
  /** Events held in memory at most (default 100,000); past it the oldest are dropped and logged whole. */
  maxPending?: number;
  /** An enqueued event not confirmed after this long has its job state checked (default 10 s). */
  confirmAfterMs?: number;
  /** How often held events are checked (default 2 s). */
  sweepIntervalMs?: number;
  /** `record` resolves at the latest after this long, the event kept in memory (default 1 s). */
  acceptTimeoutMs?: number;
  /** Jobs per bulk add (default 200) and bulk adds in flight at once (default 4). */
  maxBulk?: number;
  maxInFlightBulks?: number;
  /** Pause after a failed enqueue before trying again (default 1 s). */
  retryDelayMs?: number;
  /** Job-state checks per sweep (default 5,000), run this many at a time (default 32). */
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
  /** Resolves true once no held event is waiting to reach Redis, false after `timeoutMs`. */
  flush(timeoutMs?: number): Promise<boolean>;
  /** Resolves true once every held event is confirmed written, false after `timeoutMs`. */
  drain(timeoutMs?: number): Promise<boolean>;
  /** Checks the due held events now instead of at the next interval. */
  sweep(): Promise<void>;
  stats(): UsageRecorderStats;
  close(): Promise<void>;
}

type RecorderDependencies = Pick<Dependencies, 'config' | 'redisKeys' | 'logger' | 'clock' | 'subscriber'>;

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
    checkConcurrency: options.checkConcurrency ?? 32,
    closeTimeoutMs: options.closeTimeoutMs ?? 5_000,
  };
  const logger = deps.logger.child({ component: 'usage-recorder' });
  const connection = createRedis(deps.config.redisUrl, { forBullmq: true, name: 'billing-producer' });
  const queue = new Queue<UsageEvent>(BILLING_QUEUE_NAME, { connection, prefix: deps.redisKeys.bullPrefix() });
  queue.on('error', (error) => logger.warn({ err: error }, 'billing queue error'));
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

  const pump = () => {
    pumpScheduled = false;
    while (retryTimer === undefined && inFlightBulks < settings.maxInFlightBulks && pending.unsentCount > 0) {
      const batch = pending.takeUnsent(settings.maxBulk);
      if (batch.length === 0) break;
      inFlightBulks += 1;
      const ids = batch.map((event) => event.requestId);
      queue.addBulk(batch.map((event) => ({ name: USAGE_JOB_NAME, data: event, opts: { ...USAGE_JOB_OPTIONS, jobId: event.requestId } })))
        .then(() => {
          pending.markEnqueued(ids, deps.clock.now());
          for (const id of ids) resolveWaiter(id);
        })
        .catch((error: unknown) => {
          pending.markUnsent(ids, deps.clock.now());
          logger.warn({ err: error, events: ids.length }, 'enqueueing usage events failed; kept in memory, retrying');
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
    // One bulk add per tick: events recorded in the same tick share a Redis round trip.
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
   * Enqueues a held event again (safe: the worker writes nothing for a request id already in
   * PostgreSQL). A leftover of the old job (a hash without its payload, after keys were lost or
   * evicted one by one) would make the add a no-op, so it is removed first.
   */
  const enqueueAgain = async (requestId: string, reason: string) => {
    logger.warn({ requestId }, reason);
    await queue.remove(requestId).catch(() => 0);
    pending.markUnsent([requestId], deps.clock.now());
    schedulePump();
  };

  const checkOne = async (requestId: string) => {
    const state = await queue.getJobState(requestId);
    if (state === 'completed') {
      pending.confirm([requestId]);
    } else if (state === 'failed') {
      const job = await queue.getJob(requestId);
      const data: unknown = job?.data;
      const intact = typeof data === 'object' && data !== null && (data as { requestId?: unknown }).requestId === requestId;
      if (!intact) {
        await enqueueAgain(requestId, 'billing job failed without its payload (Redis lost part of it); enqueueing it again');
        return;
      }
      // Retries are exhausted; the failed job keeps the event in Redis for an operator.
      logger.error({ usageEvent: pending.event(requestId), reason: job?.failedReason }, 'billing job failed after all attempts');
      pending.confirm([requestId]);
    } else if (state === 'unknown') {
      // Neither written (we would have had a confirmation or a completed job) nor queued: Redis lost it.
      await enqueueAgain(requestId, 'billing job vanished from Redis; enqueueing it again');
    } else {
      pending.touch(requestId, deps.clock.now());
    }
  };

  const runSweep = async () => {
    const due = pending.dueForCheck(deps.clock.now(), settings.confirmAfterMs, settings.maxChecksPerSweep);
    let next = 0;
    const lane = async () => {
      while (next < due.length && !closed) {
        const requestId = due[next++];
        if (requestId === undefined || pending.state(requestId) !== 'enqueued') continue;
        try {
          await checkOne(requestId);
        } catch (error) {
          logger.warn({ err: error }, 'checking a billing job failed; will check again');
          return;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(settings.checkConcurrency, due.length) }, lane));
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
      await queue.close().catch(() => undefined);
      connection.disconnect();
    },
  };
}
