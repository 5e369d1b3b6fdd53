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
import { appendEvents, entriesStillInStream, type StreamLayout } from './durable-stream-entries';
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
export interface DurableStreamSpec<E> extends StreamLayout<E> {
  /** Connection name and log component. */
  name: string;
  channel: string;
  /** The request ids among these that PostgreSQL already holds. */
  written(requestIds: string[]): Promise<string[]>;
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

/** Resolves true once `condition` holds, false after `timeoutMs` (checked every `stepMs`). */
async function waitUntil(condition: () => boolean, timeoutMs: number, stepMs = 10): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await sleep(stepMs);
  }
  return true;
}

function settingsOf(options: DurableStreamOptions): Required<DurableStreamOptions> {
  return {
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
}

/** One stream's producer: the events it holds, its appends in flight, its checks of unconfirmed events. */
class DurableStreamProducerImpl<E extends StreamEvent> implements DurableStreamProducer<E> {
  private readonly settings: Required<DurableStreamOptions>;
  private readonly logger: ProducerLogger;
  private readonly connection: Redis;
  private readonly channel: string;
  private readonly pending: PendingEvents<E>;
  /** record() callers waiting for their event to reach Redis. */
  private readonly waiters = new Map<string, () => void>();
  private inFlightBulks = 0;
  private pumpScheduled = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  private readonly sweepTimer: NodeJS.Timeout;
  private closed = false;

  constructor(
    private readonly deps: ProducerDependencies,
    private readonly spec: DurableStreamSpec<E>,
    options: DurableStreamOptions,
  ) {
    this.settings = settingsOf(options);
    this.logger = deps.logger.child({ component: spec.name });
    this.connection = createRedis(deps.config.redis, { name: spec.name });
    this.channel = spec.channel;
    this.pending = new PendingEvents<E>(this.settings.maxPending);
    this.subscribe();
    this.sweepTimer = setInterval(() => {
      void this.sweep();
    }, this.settings.sweepIntervalMs);
    this.sweepTimer.unref();
  }

  hold(event: E): HeldEvent | undefined {
    if (this.closed || !this.add(event, 'sending')) return undefined;
    const notAppended = () => this.appendLater(event);
    return {
      payload: JSON.stringify(event),
      appended: (entryId) => {
        if (entryId === '') return notAppended();
        this.pending.markEnqueued([event.requestId], this.deps.clock.now(), [entryId]);
        // Appended by the holder: shed as the producer's own appends are.
        this.spec.shedAfterAppend?.(event);
      },
      notAppended,
    };
  }

  record(event: E): Promise<void> {
    try {
      if (this.closed) {
        this.logClosed(event);
        return Promise.resolve();
      }
      if (!this.add(event)) return Promise.resolve();
      this.schedulePump();
      return this.waitForAppend(event.requestId);
    } catch (error) {
      this.logger.error({ err: error, event }, 'recording an event failed');
      return Promise.resolve();
    }
  }

  submit(event: E): void {
    if (this.closed) return this.logClosed(event);
    if (this.add(event)) this.schedulePump();
  }

  flush(timeoutMs = 10_000): Promise<boolean> {
    return waitUntil(() => this.allSent(), timeoutMs);
  }

  drain(timeoutMs = 30_000): Promise<boolean> {
    return waitUntil(() => this.pending.size === 0, timeoutMs, 25);
  }

  sweep(): Promise<void> {
    this.sweeping ??= this.runSweep().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  stats(): DurableStreamStats {
    return { pending: this.pending.size, unsent: this.pending.unsentCount };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    const sent = await waitUntil(() => this.allSent(), this.settings.closeTimeoutMs);
    this.closed = true;
    clearInterval(this.sweepTimer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (!sent) {
      for (const event of this.pending.takeUnsent(Number.MAX_SAFE_INTEGER)) {
        this.logger.error({ event }, 'producer closing with an event never enqueued; replay it from this log line');
      }
    }
    for (const resolve of this.waiters.values()) resolve();
    this.waiters.clear();
    this.deps.subscriber.off('message', this.onMessage);
    await this.deps.subscriber.unsubscribe(this.channel).catch(() => undefined);
    await this.sweeping?.catch(() => undefined);
    this.connection.disconnect();
  }

  /** Holds the event (false when its request id is already held); the events dropped to make room are logged. */
  private add(event: E, state?: 'unsent' | 'sending'): boolean {
    const { added, dropped } = this.pending.add(event, this.deps.clock.now(), state);
    this.logDropped(dropped);
    return added;
  }

  private logDropped(dropped: Array<{ event: E; state: PendingState }>): void {
    for (const { event, state } of dropped) {
      this.resolveWaiter(event.requestId);
      // The whole event goes to the log: an operator can replay it from there.
      if (state === 'enqueued') this.logger.warn({ event }, 'pending events full: forgot an enqueued event (its entry is in Redis)');
      else this.logger.error({ event }, 'pending events full: dropped an event never enqueued; replay it from this log line');
    }
  }

  private logClosed(event: E): void {
    this.logger.error({ event }, 'producer closed: event not enqueued; replay it from this log line');
  }

  /** A held event its script did not append: the producer appends it itself. */
  private appendLater(event: E): void {
    if (this.pending.state(event.requestId) !== 'sending') return;
    this.pending.markUnsent([event.requestId], this.deps.clock.now());
    this.schedulePump();
  }

  /** Resolves once the event is in Redis (or confirmed, dropped, the producer closed), at the latest after `acceptTimeoutMs`. */
  private waitForAppend(requestId: string): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters.delete(requestId);
        resolve();
      }, this.settings.acceptTimeoutMs);
      timer.unref();
      this.waiters.set(requestId, () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private resolveWaiter(requestId: string): void {
    const resolve = this.waiters.get(requestId);
    if (resolve) {
      this.waiters.delete(requestId);
      resolve();
    }
  }

  private allSent(): boolean {
    return this.pending.unsentCount === 0 && this.inFlightBulks === 0;
  }

  private schedulePump(): void {
    if (this.pumpScheduled || this.pending.unsentCount === 0) return;
    this.pumpScheduled = true;
    // One pipeline per tick (or per `lingerMs`): events recorded meanwhile share a Redis round trip.
    if (this.spec.lingerMs && this.pending.unsentCount < this.settings.maxBulk) setTimeout(() => this.pump(), this.spec.lingerMs).unref();
    else setImmediate(() => this.pump());
  }

  /** Sends the unsent events, `maxBulk` per append and `maxInFlightBulks` at once; none while a retry waits. */
  private pump(): void {
    this.pumpScheduled = false;
    while (this.retryTimer === undefined && this.inFlightBulks < this.settings.maxInFlightBulks && this.pending.unsentCount > 0) {
      const batch = this.pending.takeUnsent(this.settings.maxBulk);
      if (batch.length === 0) break;
      this.sendBulk(batch);
    }
  }

  private sendBulk(batch: E[]): void {
    this.inFlightBulks += 1;
    appendEvents(this.connection, this.spec, batch)
      .then((entryIds) => this.markAppended(batch, entryIds))
      .catch((error: unknown) => this.retryUnsent(batch, error))
      .finally(() => {
        this.inFlightBulks -= 1;
        this.schedulePump();
      });
  }

  /** The appended events are in Redis (shed, their `record` resolved); any one not appended fails the bulk. */
  private markAppended(batch: E[], entryIds: Array<string | undefined>): void {
    const sent = batch.filter((_event, index) => entryIds[index] !== undefined);
    this.pending.markEnqueued(
      sent.map((event) => event.requestId),
      this.deps.clock.now(),
      entryIds.filter((id) => id !== undefined),
    );
    if (this.spec.shedAfterAppend) for (const event of sent) this.spec.shedAfterAppend(event);
    for (const event of sent) this.resolveWaiter(event.requestId);
    if (sent.length < batch.length) throw new Error(`${batch.length - sent.length} appends refused`);
  }

  /** A failed bulk's events not appended wait in memory; one retry pumps again after `retryDelayMs`. */
  private retryUnsent(batch: E[], error: unknown): void {
    const unsent = batch.filter((event) => this.pending.state(event.requestId) === 'sending').map((event) => event.requestId);
    this.pending.markUnsent(unsent, this.deps.clock.now());
    this.logger.warn({ err: error, events: unsent.length }, 'appending events failed; kept in memory, retrying');
    if (this.retryTimer !== undefined) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.pump();
    }, this.settings.retryDelayMs);
    this.retryTimer.unref();
  }

  /** Worker confirmations; when one is missed (or the subscription fails), the sweep's state checks confirm instead. */
  private subscribe(): void {
    this.deps.subscriber.on('message', this.onMessage);
    this.deps.subscriber
      .subscribe(this.channel)
      .catch((error: unknown) => this.logger.warn({ err: error }, 'cannot subscribe to worker confirmations; relying on state checks'));
  }

  /** A worker's confirmation: a JSON array of the request ids it wrote to PostgreSQL. */
  private readonly onMessage = (messageChannel: string, message: string): void => {
    if (messageChannel !== this.channel) return;
    let ids: unknown;
    try {
      ids = JSON.parse(message);
    } catch {
      return;
    }
    if (!Array.isArray(ids)) return;
    this.confirm(ids.filter((id): id is string => typeof id === 'string'));
  };

  /** Written in PostgreSQL: forgotten, their `record` resolved. */
  private confirm(requestIds: string[]): void {
    this.pending.confirm(requestIds);
    for (const id of requestIds) this.resolveWaiter(id);
  }

  /** Checks the due unconfirmed events, `checkConcurrency` at a time, until one check fails (the next sweep retries) or close. */
  private async runSweep(): Promise<void> {
    const due = this.pending.dueForCheck(this.deps.clock.now(), this.settings.confirmAfterMs, this.settings.maxChecksPerSweep);
    for (let start = 0; start < due.length && !this.closed; start += this.settings.checkConcurrency) {
      try {
        await this.checkBatch(due.slice(start, start + this.settings.checkConcurrency));
      } catch (error) {
        this.logger.warn({ err: error }, 'checking unconfirmed events failed; will check again');
        return;
      }
    }
  }

  /**
   * Appended events not confirmed for a while: still in the stream → a worker will get to them;
   * else written in PostgreSQL → confirmed; else Redis lost them → appended again (safe: a worker
   * writes nothing for a request id already in PostgreSQL). Redis is read before PostgreSQL, and a
   * worker deletes an entry only after its commit, so an event is never taken for lost while written.
   */
  private async checkBatch(requestIds: string[]): Promise<void> {
    const found = await entriesStillInStream(this.connection, this.spec, this.pending, requestIds);
    const missing: string[] = [];
    for (const requestId of requestIds) {
      if (found.has(requestId)) this.pending.touch(requestId, this.deps.clock.now());
      else missing.push(requestId);
    }
    if (missing.length === 0) return;
    const writtenIds = new Set(await this.spec.written(missing));
    this.confirm([...writtenIds]);
    const lost = missing.filter((requestId) => !writtenIds.has(requestId) && this.pending.state(requestId) === 'enqueued');
    if (lost.length === 0) return;
    this.logger.warn({ events: lost.length }, 'events vanished from Redis before a worker wrote them; appending them again');
    this.pending.markUnsent(lost, this.deps.clock.now());
    this.schedulePump();
  }
}

export function createDurableStreamProducer<E extends StreamEvent>(
  deps: ProducerDependencies,
  spec: DurableStreamSpec<E>,
  options: DurableStreamOptions = {},
): DurableStreamProducer<E> {
  return new DurableStreamProducerImpl(deps, spec, options);
}
