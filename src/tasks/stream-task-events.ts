/**
 * `GET /v1/tasks/stream/{task_id}` as a per-request state machine: subscribe first, then read the
 * database, so a change is either in what was read or arrives over pub/sub (duplicates are
 * dropped by sequence number). Without `Last-Event-ID` the first event is the current state; with
 * it, every stored event after that id is replayed. A gap in the live sequence (a lost message)
 * and every heartbeat re-read the database, so no change is lost even if pub/sub drops one.
 * The stream ends after a terminal state, or with an `error` event (the interface's 401 for in-flight
 * requests) as soon as its key is revoked, disabled, expired or deleted on any API process.
 */
import type { Response } from 'express';
import type { Pool } from 'pg';
import { keyInvalidatedError } from '../auth/key-invalidated-error';
import type { Logger } from '../http/logger';
import { renderOpenAiStyleError } from '../protocols/shared/openai-error-envelope';
import { findTask, listTaskEvents } from '../db/repositories/tasks';
import type { TaskEvent } from './task-event';
import type { TaskEventHub } from './task-event-hub';
import { toTaskView, type TaskRow } from './task-record';
import { isTerminalStatus } from './task-status';

export interface TaskStreamOptions {
  db: Pool;
  hub: TaskEventHub;
  logger: Logger;
  task: TaskRow;
  /** The `Last-Event-ID` the client resumes from, if any. */
  lastEventId?: number;
  heartbeatMs: number;
  /** Registers a callback for the stream's key becoming unusable (the key authenticator's onInvalidated); returns its unsubscribe. */
  onKeyInvalidated(listener: () => void): () => void;
}

function frame(event: TaskEvent): string {
  return `id: ${event.seq}\nevent: ${event.task.status}\ndata: ${JSON.stringify(event.task)}\n\n`;
}

export function parseLastEventId(value: unknown): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  if (typeof text !== 'string' || !/^\d{1,9}$/.test(text.trim())) return undefined;
  return Number(text.trim());
}

export async function streamTaskEvents(res: Response, options: TaskStreamOptions): Promise<void> {
  const { db, task } = options;
  let lastSent = 0;
  let closed = false;
  let ready = false;
  const early: TaskEvent[] = [];
  let chain: Promise<void> = Promise.resolve();
  let unsubscribe: (() => void) | undefined;
  let heartbeat: NodeJS.Timeout | undefined;
  let stopWatchingKey: (() => void) | undefined;

  const finish = () => {
    if (closed) return;
    closed = true;
    if (heartbeat) clearInterval(heartbeat);
    unsubscribe?.();
    stopWatchingKey?.();
    if (!res.writableEnded) res.end();
  };
  res.on('close', finish);
  stopWatchingKey = options.onKeyInvalidated(() => {
    if (closed) return;
    if (res.headersSent && !res.writableEnded)
      res.write(`event: error\ndata: ${JSON.stringify(renderOpenAiStyleError(keyInvalidatedError()).body)}\n\n`);
    finish();
  });

  const write = (event: TaskEvent) => {
    if (closed || event.seq <= lastSent) return;
    lastSent = event.seq;
    res.write(frame(event));
    if (isTerminalStatus(event.task.status)) finish();
  };

  /** Everything stored after what was sent, in order. */
  const catchUp = async () => {
    if (closed) return;
    for (const stored of await listTaskEvents<TaskEvent['task']>(db, task.id, lastSent)) write({ seq: stored.seq, task: stored.payload });
  };

  const onEvent = (event: TaskEvent) => {
    if (!ready) {
      early.push(event);
      return;
    }
    // Serialized: a catch-up read must not interleave with a later live event.
    chain = chain
      .then(async () => {
        if (closed || event.seq <= lastSent) return;
        if (event.seq > lastSent + 1) await catchUp();
        write(event);
      })
      .catch((error: unknown) => {
        options.logger.warn({ err: error, taskId: task.id }, 'task stream catch-up failed');
        finish();
      });
  };

  unsubscribe = await options.hub.listen(task.id, onEvent);
  if (closed) {
    unsubscribe();
    return;
  }

  res.status(200);
  res.setHeader('content-type', 'text/event-stream; charset=utf-8');
  res.setHeader('cache-control', 'no-cache, no-transform');
  res.setHeader('connection', 'keep-alive');
  res.setHeader('x-accel-buffering', 'no');
  res.flushHeaders();
  res.write('retry: 2000\n\n');

  let current: TaskRow;
  try {
    // Read after subscribing: whatever was committed before is here, whatever after arrives live.
    current = (await findTask<TaskRow>(db, task.id)) ?? task;
    if (options.lastEventId === undefined || options.lastEventId > current.event_seq) {
      write({ seq: current.event_seq, task: toTaskView(current) });
    } else {
      lastSent = options.lastEventId;
      await catchUp();
    }
  } catch (error) {
    options.logger.warn({ err: error, taskId: task.id }, 'task stream could not read the task');
    finish();
    return;
  }
  ready = true;
  for (const event of early.splice(0)) onEvent(event);
  if (closed) return;
  // A client resuming from the terminal event already has everything.
  if (isTerminalStatus(current.status) && lastSent >= current.event_seq) {
    finish();
    return;
  }

  heartbeat = setInterval(() => {
    if (closed) return;
    res.write(': keepalive\n\n');
    // A published message can be lost (subscriber reconnect, a worker killed between COMMIT and
    // PUBLISH): the database is the truth, so each heartbeat also checks it.
    chain = chain.then(catchUp).catch((error: unknown) => {
      options.logger.warn({ err: error, taskId: task.id }, 'task stream heartbeat check failed');
    });
  }, options.heartbeatMs);
  heartbeat.unref();
}
