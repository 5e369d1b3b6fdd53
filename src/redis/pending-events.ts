/**
 * The API process's copy of every event it produced (usage events, request records) that no worker
 * has confirmed as written to PostgreSQL yet. Events wait in a Redis stream; if Redis loses them
 * (flush, failover without persistence) this copy is appended again. Bounded: past `maxEntries` the
 * oldest entries are dropped, those already in Redis first.
 */

/** What a durable stream carries: anything with a request id (its idempotency key). */
export interface StreamEvent {
  requestId: string;
}

/** `unsent`: not in Redis yet; `sending`: an append is in flight; `enqueued`: in the usage stream (as far as we know). */
export type PendingState = 'unsent' | 'sending' | 'enqueued';

interface PendingEntry<E> {
  event: E;
  state: PendingState;
  /** Unix ms of the last enqueue or state check. */
  since: number;
  /** Its entry in the usage stream, once appended. */
  streamId?: string;
}

export class PendingEvents<E extends StreamEvent> {
  // Map iteration order is insertion order: the oldest entries come first.
  private readonly entries = new Map<string, PendingEntry<E>>();
  private readonly unsent = new Set<string>();

  constructor(private readonly maxEntries: number) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new Error('maxEntries must be a positive integer');
  }

  get size(): number {
    return this.entries.size;
  }

  get unsentCount(): number {
    return this.unsent.size;
  }

  has(requestId: string): boolean {
    return this.entries.has(requestId);
  }

  state(requestId: string): PendingState | undefined {
    return this.entries.get(requestId)?.state;
  }

  /**
   * Adds an event as unsent. Returns false when the request id is already held (a repeated record
   * is a no-op), and the events dropped to stay within bounds.
   */
  add(
    event: E,
    now: number,
    state: 'unsent' | 'sending' = 'unsent',
  ): { added: boolean; dropped: Array<{ event: E; state: PendingState }> } {
    if (this.entries.has(event.requestId)) return { added: false, dropped: [] };
    this.entries.set(event.requestId, { event, state, since: now });
    if (state === 'unsent') this.unsent.add(event.requestId);
    const dropped: Array<{ event: E; state: PendingState }> = [];
    while (this.entries.size > this.maxEntries) {
      const victim = this.oldestIn('enqueued') ?? this.oldestIn('unsent') ?? this.oldestIn('sending');
      if (victim === undefined) break;
      const entry = this.entries.get(victim);
      if (entry) dropped.push({ event: entry.event, state: entry.state });
      this.remove(victim);
    }
    return { added: true, dropped };
  }

  /** Up to `limit` unsent events, now marked `sending`, oldest first. */
  takeUnsent(limit: number): E[] {
    const taken: E[] = [];
    for (const requestId of this.unsent) {
      if (taken.length >= limit) break;
      const entry = this.entries.get(requestId);
      this.unsent.delete(requestId);
      if (!entry) continue;
      entry.state = 'sending';
      taken.push(entry.event);
    }
    return taken;
  }

  markEnqueued(requestIds: readonly string[], now: number, streamIds: readonly (string | undefined)[] = []): void {
    requestIds.forEach((requestId, index) => {
      const entry = this.entries.get(requestId);
      if (!entry) return;
      entry.state = 'enqueued';
      entry.since = now;
      entry.streamId = streamIds[index];
      this.unsent.delete(requestId);
    });
  }

  /** Back to unsent: the enqueue failed, or the job vanished from Redis. */
  markUnsent(requestIds: readonly string[], now: number): void {
    for (const requestId of requestIds) {
      const entry = this.entries.get(requestId);
      if (!entry) continue;
      entry.state = 'unsent';
      entry.since = now;
      this.unsent.add(requestId);
    }
  }

  /** Postpones the next state check of an enqueued event. */
  touch(requestId: string, now: number): void {
    const entry = this.entries.get(requestId);
    if (entry) entry.since = now;
  }

  /** Forgets events a worker has written (or that are otherwise settled); returns how many were held. */
  confirm(requestIds: readonly string[]): number {
    let confirmed = 0;
    for (const requestId of requestIds) {
      if (this.remove(requestId)) confirmed += 1;
    }
    return confirmed;
  }

  /** Enqueued events whose last enqueue or check is older than `olderThanMs`, oldest first. */
  dueForCheck(now: number, olderThanMs: number, limit: number): string[] {
    const due: string[] = [];
    for (const [requestId, entry] of this.entries) {
      if (due.length >= limit) break;
      if (entry.state === 'enqueued' && now - entry.since >= olderThanMs) due.push(requestId);
    }
    return due;
  }

  streamId(requestId: string): string | undefined {
    return this.entries.get(requestId)?.streamId;
  }

  event(requestId: string): E | undefined {
    return this.entries.get(requestId)?.event;
  }

  private remove(requestId: string): boolean {
    this.unsent.delete(requestId);
    return this.entries.delete(requestId);
  }

  private oldestIn(state: PendingState): string | undefined {
    for (const [requestId, entry] of this.entries) {
      if (entry.state === state) return requestId;
    }
    return undefined;
  }
}
