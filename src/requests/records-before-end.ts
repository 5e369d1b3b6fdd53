/**
 * A request's record reaches Redis before its answer's last byte leaves (issue 22: "a process killed
 * after answering loses no record"). When a response ends, the request log builds a provisional
 * record (what is known then: status, error class, tokens and cost if settled, time so far) and the
 * end is held back until the record is in the request-log stream. Records ending in the same
 * event-loop tick share one append (one entry holding their batch, as the producer writes them).
 * The provisional record is not kept in memory: the record built when the response closes (the
 * final one, held by the durable producer until written) replaces it in PostgreSQL; the provisional
 * one only matters when the process died before that.
 *
 * Never blocks an answer for long: with Redis not ready the end is not held at all, and an append
 * that has not answered within `timeoutMs` lets the ends go anyway.
 */
import type Redis from 'ioredis';
import type { RequestRecord } from './request-record';

interface Waiting { record: RequestRecord; release: () => void }

export interface RecordsBeforeEnd {
  /** Appends the record, then calls `release`; false when Redis is not ready (the caller releases at once). */
  hold(record: RequestRecord, release: () => void): boolean;
}

export function createRecordsBeforeEnd(
  redis: Redis, stream: () => string, onFailure: (error: unknown, records: number) => void, timeoutMs = 250,
): RecordsBeforeEnd {
  let waiting: Waiting[] = [];

  const append = () => {
    const batch = waiting;
    waiting = [];
    let released = false;
    const releaseAll = () => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      for (const item of batch) item.release();
    };
    const timer = setTimeout(() => {
      onFailure(new Error(`no answer from Redis within ${timeoutMs} ms`), batch.length);
      releaseAll();
    }, timeoutMs);
    timer.unref();
    redis.xadd(stream(), '*', 'b', JSON.stringify(batch.map((item) => item.record))).then(releaseAll, (error: unknown) => {
      onFailure(error, batch.length);
      releaseAll();
    });
  };

  return {
    hold(record, release) {
      if (redis.status !== 'ready') return false;
      if (waiting.length === 0) setImmediate(append);
      waiting.push({ record, release });
      return true;
    },
  };
}
