/**
 * A request's record reaches Redis before its answer's last byte leaves (issue 22: "a process killed
 * after answering loses no record"). When a response ends, the request log builds the record as
 * known then and the end is held back until the record is in its account's request-log stream.
 * Records ending in the same event-loop tick share one append per stream (one entry holding their
 * batch, as the durable producer writes them). A whole paid answer's record does not come here: it
 * rode in its settlement (see create-request-log.ts).
 *
 * Two kinds: a record already complete at the end (most answers) is held by the durable producer
 * (kept in memory until written; appended by the producer itself if this append fails) and no other
 * record follows; a provisional one (a stream, settled after its end; kept bodies, assembled at the
 * close) is not kept: the record built when the response closes replaces it in PostgreSQL.
 *
 * Never blocks an answer for long: with Redis not ready the end is not held at all, and an append
 * that has not answered within `timeoutMs` lets the ends go anyway.
 */
import type Redis from 'ioredis';
import type { HeldEvent } from '../redis/durable-stream-producer';
import { groupBy } from '../redis/keys';

interface Waiting {
  stream: string;
  /** The record as JSON. */
  payload: string;
  release: () => void;
  /** A complete record: told where it went (or that it did not). */
  held?: HeldEvent;
}

export interface RecordsBeforeEnd {
  /** Appends the record to `stream`, then calls `release`; false when Redis is not ready (the caller releases at once). */
  hold(stream: string, payload: string, release: () => void, held?: HeldEvent): boolean;
  ready(): boolean;
}

export function createRecordsBeforeEnd(
  redis: Redis,
  onFailure: (error: unknown, records: number) => void,
  timeoutMs = 250,
): RecordsBeforeEnd {
  let waiting: Waiting[] = [];

  const appendAll = () => {
    const batch = waiting;
    waiting = [];
    // One stream (one account shard) is the usual case: skip the grouping.
    if (batch.every((item) => item.stream === batch[0]!.stream)) append(batch[0]!.stream, batch);
    else for (const [stream, group] of groupBy(batch, (item) => item.stream)) append(stream, group);
  };

  const append = (stream: string, batch: Waiting[]) => {
    let settled = false;
    const settle = (entryId: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      for (const item of batch) {
        if (entryId === undefined) item.held?.notAppended();
        else item.held?.appended(entryId);
        item.release();
      }
    };
    const timer = setTimeout(() => {
      onFailure(new Error(`no answer from Redis within ${timeoutMs} ms`), batch.length);
      // The producer appends its held records itself; one appended meanwhile is written once (the worker skips it).
      settle(undefined);
    }, timeoutMs);
    timer.unref();
    redis.xadd(stream, '*', 'b', `[${batch.map((item) => item.payload).join(',')}]`).then(
      (entryId) => settle(entryId === null ? undefined : String(entryId)),
      (error: unknown) => {
        onFailure(error, batch.length);
        settle(undefined);
      },
    );
  };

  return {
    ready: () => redis.status === 'ready',
    hold(stream, payload, release, held) {
      if (redis.status !== 'ready') return false;
      if (waiting.length === 0) setImmediate(appendAll);
      waiting.push({ stream, payload, release, held });
      return true;
    },
  };
}
