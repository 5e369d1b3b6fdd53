/**
 * The API side of a durable stream (usage events, request records): events are entries of a Redis
 * stream that workers consume, appended here coalesced into one pipeline per event-loop tick (or by
 * a script, see `hold`). Nothing here ever throws into the request path. Every event is also kept in
 * memory until a worker confirms it is in PostgreSQL (pub/sub; when a confirmation was missed, its
 * stream entry and PostgreSQL are checked), so a Redis that loses its entries (flush, failover
 * without persistence) gets them appended again. See docs/billing.md.
 */
import type Redis from 'ioredis';
import type { RedisTarget } from '../config';
import { createRedis } from './connection';
import { groupBy } from './keys';
import { PendingEvents, type PendingState, type StreamEvent } from './pending-events';

export interface DurableStreamOptions {
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

/** Which stream, which confirmation channel, and how to tell an event is already in PostgreSQL. */
export interface DurableStreamSpec<E> {
  /** Connection name and log component. */
  name: string;
  /** The stream an event is appended to (usage events: their account's shard; on a cluster a pipeline stays in one slot). */
  streamOf(event: E): string;
  channel: string;
  /** The request ids among these that PostgreSQL already holds. */
  written(requestIds: string[]): Promise<string[]>;
  /**
   * One stream entry per batch (field `b`: a JSON array of events) instead of one per event (field
   * `e`): far less work per event for Redis, the producer and the worker (the request log).
   */
  batchEntries?: boolean;
  /** Appends wait this long to gather more events (default: none, one append per event-loop tick). */
  lingerMs?: number;
  /** Lightens an event once it is in Redis (what a lost stream would then re-append without). */
  shedAfterAppend?: (event: E) => void;
}

export interface DurableStreamStats {
  /** Events not yet confirmed written by a worker. */
  pending: number;
  /** Events not yet in Redis. */
  unsent: number;
}

/** An event a script appends (with other writes, in one round trip); told whether it did. */
export interface HeldEvent {
  payload: string;
  /** The stream entry id the script returned ('' when it did not append). */
  appended(entryId: string): void;
  /** The script did not run (Redis away): the producer appends the event itself later. */
  notAppended(): void;
}

/**
 * A held event that rides in another owner's script (a whole answer's request record in its
 * settlement): the payload goes to `stream` as one entry of field `b` (a JSON array of events).
 * The script's keys must share one slot on a cluster, so `stream` is of the script's shard.
 */
export interface StreamRider extends HeldEvent {
  stream: string;
}

export interface DurableStreamProducer<E extends StreamEvent> {
  /** Appends the event to the stream. Never throws into the request path. */
  record(event: E): Promise<void>;
  /** `record` without waiting: no timer, no promise (the request path's cheap form). */
  submit(event: E): void;
  /** Keeps the event until a worker confirms it and returns its payload for a script to append; undefined when it cannot hold it. */
  hold(event: E): HeldEvent | undefined;
  /** Resolves true once no held event is waiting to reach Redis, false after `timeoutMs`. */
  flush(timeoutMs?: number): Promise<boolean>;
  /** Resolves true once every held event is confirmed written, false after `timeoutMs`. */
  drain(timeoutMs?: number): Promise<boolean>;
  /** Checks the due held events now instead of at the next interval. */
  sweep(): Promise<void>;
  stats(): DurableStreamStats;
  close(): Promise<void>;
}

/** What the producer uses of the process's dependencies (structural, so redis/ stays below them). */
interface ProducerLogger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}
interface ProducerDependencies {
  config: { redis: RedisTarget };
  logger: { child(bindings: object): ProducerLogger };
  clock: { now(): number };
  subscriber: Redis;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export function createDurableStreamProducer<E extends StreamEvent>(
  deps: ProducerDependencies,
  spec: DurableStreamSpec<E>,
  options: DurableStreamOptions = {},
): DurableStreamProducer<E> {
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
  const logger = deps.logger.child({ component: spec.name });
  const connection = createRedis(deps.config.redis, { name: spec.name });
  const { channel } = spec;
  const pending = new PendingEvents<E>(settings.maxPending);
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

  const logDropped = (dropped: Array<{ event: E; state: PendingState }>) => {
    for (const { event, state } of dropped) {
      resolveWaiter(event.requestId);
      // The whole event goes to the log: an operator can replay it from there.
      if (state === 'enqueued') logger.warn({ event }, 'pending events full: forgot an enqueued event (its entry is in Redis)');
      else logger.error({ event }, 'pending events full: dropped an event never enqueued; replay it from this log line');
    }
  };

  /** Appends one stream's events: one entry for the batch, or one pipeline of one entry per event. */
  const appendTo = async (stream: string, batch: E[]): Promise<Array<string | undefined>> => {
    if (spec.batchEntries) {
      const id = await connection.xadd(stream, '*', 'b', JSON.stringify(batch));
      return batch.map(() => (id === null ? undefined : String(id)));
    }
    const pipeline = connection.pipeline();
    for (const event of batch) pipeline.xadd(stream, '*', 'e', JSON.stringify(event));
    const results = (await pipeline.exec()) ?? [];
    return batch.map((_event, index) => {
      const [error, id] = results[index] ?? [new Error('no reply')];
      return error ? undefined : String(id);
    });
  };

  /** One append per stream (on one server they leave in one write); a stream whose node is away leaves its events unsent. */
  const append = async (batch: E[]): Promise<Array<string | undefined>> => {
    const entryIds = new Map<E, string>();
    await Promise.all(
      [...groupBy(batch, spec.streamOf)].map(async ([stream, events]) => {
        const ids = await appendTo(stream, events).catch(() => [] as Array<string | undefined>);
        events.forEach((event, index) => {
          if (ids[index] !== undefined) entryIds.set(event, ids[index]);
        });
      }),
    );
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
          pending.markEnqueued(
            sent.map((event) => event.requestId),
            deps.clock.now(),
            entryIds.filter((id) => id !== undefined),
          );
          if (spec.shedAfterAppend) for (const event of sent) spec.shedAfterAppend(event);
          for (const event of sent) resolveWaiter(event.requestId);
          if (sent.length < batch.length) throw new Error(`${batch.length - sent.length} appends refused`);
        })
        .catch((error: unknown) => {
          const unsent = batch.filter((event) => pending.state(event.requestId) === 'sending').map((event) => event.requestId);
          pending.markUnsent(unsent, deps.clock.now());
          logger.warn({ err: error, events: unsent.length }, 'appending events failed; kept in memory, retrying');
          if (retryTimer === undefined) {
            retryTimer = setTimeout(() => {
              retryTimer = undefined;
              pump();
            }, settings.retryDelayMs);
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
    // One pipeline per tick (or per `lingerMs`): events recorded meanwhile share a Redis round trip.
    if (spec.lingerMs && pending.unsentCount < settings.maxBulk) setTimeout(pump, spec.lingerMs).unref();
    else setImmediate(pump);
  };

  const onMessage = (messageChannel: string, message: string) => {
    if (messageChannel !== channel) return;
    let ids: unknown;
    try {
      ids = JSON.parse(message);
    } catch {
      return;
    }
    if (!Array.isArray(ids)) return;
    const strings = ids.filter((id): id is string => typeof id === 'string');
    pending.confirm(strings);
    for (const id of strings) resolveWaiter(id);
  };
  deps.subscriber.on('message', onMessage);
  deps.subscriber
    .subscribe(channel)
    .catch((error: unknown) => logger.warn({ err: error }, 'cannot subscribe to worker confirmations; relying on state checks'));

  /**
   * Appended events not confirmed for a while: still in the stream → a worker will get to them;
   * else written in PostgreSQL → confirmed; else Redis lost them → appended again (safe: a worker
   * writes nothing for a request id already in PostgreSQL). Redis is read before PostgreSQL, and a
   * worker deletes an entry only after its commit, so an event is never taken for lost while written.
   */
  /** The request ids whose entry is still in their stream (one pipeline per stream). */
  const stillInStream = async (requestIds: string[]): Promise<Set<string>> => {
    const found = new Set<string>();
    const known = requestIds.filter((requestId) => pending.event(requestId) !== undefined);
    await Promise.all(
      [...groupBy(known, (requestId) => spec.streamOf(pending.event(requestId)!))].map(async ([stream, ids]) => {
        const pipeline = connection.pipeline();
        for (const requestId of ids) {
          const entryId = pending.streamId(requestId) ?? '0-1';
          pipeline.xrange(stream, entryId, entryId);
        }
        const results = (await pipeline.exec()) ?? [];
        ids.forEach((requestId, index) => {
          const [error, entries] = results[index] ?? [new Error('no reply')];
          if (error) throw error;
          if (Array.isArray(entries) && entries.length > 0) found.add(requestId);
        });
      }),
    );
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
    const writtenIds = new Set(await spec.written(missing));
    pending.confirm([...writtenIds]);
    for (const id of writtenIds) resolveWaiter(id);
    const lost = missing.filter((requestId) => !writtenIds.has(requestId) && pending.state(requestId) === 'enqueued');
    if (lost.length === 0) return;
    logger.warn({ events: lost.length }, 'events vanished from Redis before a worker wrote them; appending them again');
    pending.markUnsent(lost, deps.clock.now());
    schedulePump();
  };

  const runSweep = async () => {
    const due = pending.dueForCheck(deps.clock.now(), settings.confirmAfterMs, settings.maxChecksPerSweep);
    for (let start = 0; start < due.length && !closed; start += settings.checkConcurrency) {
      try {
        await checkBatch(due.slice(start, start + settings.checkConcurrency));
      } catch (error) {
        logger.warn({ err: error }, 'checking unconfirmed events failed; will check again');
        return;
      }
    }
  };

  const sweep = (): Promise<void> => {
    sweeping ??= runSweep().finally(() => {
      sweeping = undefined;
    });
    return sweeping;
  };

  const sweepTimer = setInterval(() => {
    void sweep();
  }, settings.sweepIntervalMs);
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
    hold(event: E): HeldEvent | undefined {
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
          if (entryId === '') return notAppended();
          pending.markEnqueued([event.requestId], deps.clock.now(), [entryId]);
          // Appended by the holder: shed as the producer's own appends are.
          spec.shedAfterAppend?.(event);
        },
        notAppended,
      };
    },
    record(event: E): Promise<void> {
      try {
        if (closed) {
          logger.error({ event }, 'producer closed: event not enqueued; replay it from this log line');
          return Promise.resolve();
        }
        const { added, dropped } = pending.add(event, deps.clock.now());
        logDropped(dropped);
        if (!added) return Promise.resolve();
        schedulePump();
        return new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            waiters.delete(event.requestId);
            resolve();
          }, settings.acceptTimeoutMs);
          timer.unref();
          waiters.set(event.requestId, () => {
            clearTimeout(timer);
            resolve();
          });
        });
      } catch (error) {
        logger.error({ err: error, event }, 'recording an event failed');
        return Promise.resolve();
      }
    },
    submit(event: E): void {
      if (closed) {
        logger.error({ event }, 'producer closed: event not enqueued; replay it from this log line');
        return;
      }
      const { added, dropped } = pending.add(event, deps.clock.now());
      logDropped(dropped);
      if (added) schedulePump();
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
          logger.error({ event }, 'producer closing with an event never enqueued; replay it from this log line');
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
