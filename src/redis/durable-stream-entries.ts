/**
 * The Redis side of a durable stream producer (src/redis/durable-stream-producer.ts): appending
 * events as stream entries, and looking an appended event's entry up again.
 */
import type Redis from 'ioredis';
import { groupBy } from './keys';
import type { PendingEvents, StreamEvent } from './pending-events';

/** How events map to streams and entries: the part of the producer's spec this file reads. */
export interface StreamLayout<E> {
  /** The stream an event is appended to (usage events: their account's shard; on a cluster a pipeline stays in one slot). */
  streamOf(event: E): string;
  /**
   * One stream entry per batch (field `b`: a JSON array of events) instead of one per event (field
   * `e`): far less work per event for Redis, the producer and the worker (the request log).
   */
  batchEntries?: boolean;
}

/** Appends one stream's events: one entry for the batch, or one pipeline of one entry per event. */
async function appendTo<E>(connection: Redis, layout: StreamLayout<E>, stream: string, batch: E[]): Promise<Array<string | undefined>> {
  if (layout.batchEntries) {
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
}

/**
 * One append per stream (on one server they leave in one write); a stream whose node is away leaves
 * its events unsent. Returns each event's entry id, undefined for an event not appended.
 */
export async function appendEvents<E>(connection: Redis, layout: StreamLayout<E>, batch: E[]): Promise<Array<string | undefined>> {
  const entryIds = new Map<E, string>();
  await Promise.all(
    [...groupBy(batch, layout.streamOf)].map(async ([stream, events]) => {
      const ids = await appendTo(connection, layout, stream, events).catch(() => [] as Array<string | undefined>);
      events.forEach((event, index) => {
        if (ids[index] !== undefined) entryIds.set(event, ids[index]);
      });
    }),
  );
  return batch.map((event) => entryIds.get(event));
}

/** The request ids whose entry is still in their stream (one pipeline per stream). */
export async function entriesStillInStream<E extends StreamEvent>(
  connection: Redis,
  layout: StreamLayout<E>,
  pending: PendingEvents<E>,
  requestIds: string[],
): Promise<Set<string>> {
  const found = new Set<string>();
  const known = requestIds.filter((requestId) => pending.event(requestId) !== undefined);
  await Promise.all(
    [...groupBy(known, (requestId) => layout.streamOf(pending.event(requestId)!))].map(async ([stream, ids]) => {
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
}
