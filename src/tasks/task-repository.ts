/**
 * Tasks in PostgreSQL. Every state change is one transaction that checks the current status
 * (`from`), updates the row, appends the event to `task_events`, and moves money: the hold at
 * submit; on a terminal change the hold released and, on success, the charge with its usage row.
 * Two workers racing on one task cannot both finish it: the second finds the status changed.
 */
import type { Pool } from 'pg';
import { inTransaction } from '../db/transaction';
import type { UsageEvent } from '../billing/usage-event';
import type { TaskEvent } from './task-event';
import { toTaskView, type TaskError, type TaskResult, type TaskRow } from './task-record';
import type { TaskRequest } from './task-request';
import { isTerminalStatus, type TaskKind, type TaskStatus } from './task-status';
import { INSERT_TASK_WITH_HOLD, SETTLE_TASK, settleTaskValues } from './task-wallet-sql';
import { storableJson } from '../http/storable-text';

export interface NewTask {
  id: string;
  accountId: number;
  apiKeyId: number | null;
  kind: TaskKind;
  model: string;
  request: TaskRequest;
  estimatedCredits: number;
  deadlineAt: Date;
}

export interface TaskChange {
  /** The statuses the change applies to; anything else leaves the task untouched (returns null). */
  from: readonly TaskStatus[];
  status: TaskStatus;
  progress?: number;
  providerRef?: string | null;
  upstreamAccountId?: number | null;
  result?: TaskResult | null;
  error?: TaskError | null;
  actualCredits?: number;
  /** Internal bookkeeping (the provider's operation name) is not a state change callers see. */
  silent?: boolean;
  /** On success: the usage event written with the charge (request id = task id). */
  charge?: UsageEvent;
}

export interface TaskChangeOutcome {
  row: TaskRow;
  event?: TaskEvent;
  /**
   * The wallet movement of this change (hold released minus charge). The Redis wallet cache saw the
   * hold when the submit was settled, so this is exactly what it still has to learn.
   */
  walletDeltaCredits: number;
}


/**
 * Inserts the task (status queued, event 1) and holds its estimate on the wallet, in ONE statement:
 * the account row, which every hold, release and charge of the account updates, is locked only
 * while PostgreSQL runs it, never across a client round trip (see task-wallet-sql.ts).
 */
export async function insertTask(db: Pool, task: NewTask, now: Date): Promise<TaskChangeOutcome> {
  const row: TaskRow = {
    id: task.id, account_id: task.accountId, api_key_id: task.apiKeyId, kind: task.kind, model: task.model, status: 'queued',
    progress: 0, request: task.request, provider_ref: null, upstream_account_id: null, result: null, error: null,
    estimated_credits: task.estimatedCredits, actual_credits: null, event_seq: 1, deadline_at: task.deadlineAt,
    created_at: now, started_at: null, finished_at: null, updated_at: now,
  };
  const event: TaskEvent = { seq: 1, task: toTaskView(row) };
  await db.query(INSERT_TASK_WITH_HOLD, [
    task.id, task.accountId, task.apiKeyId, task.kind, task.model, storableJson(task.request), task.estimatedCredits,
    task.deadlineAt, now, storableJson(event.task), `hold for ${task.kind} task (${task.model})`,
  ]);
  return { row, event, walletDeltaCredits: -task.estimatedCredits };
}

export async function findTask(db: Pool, id: string): Promise<TaskRow | undefined> {
  const result = await db.query<TaskRow>('SELECT * FROM tasks WHERE id = $1', [id]);
  return result.rows[0];
}

/** Another account's task is indistinguishable from a missing one. */
export async function findAccountTask(db: Pool, id: string, accountId: number): Promise<TaskRow | undefined> {
  const result = await db.query<TaskRow>('SELECT * FROM tasks WHERE id = $1 AND account_id = $2', [id, accountId]);
  return result.rows[0];
}

/** Events after `afterSeq`, in order (SSE resume). */
export async function listTaskEvents(db: Pool, id: string, afterSeq: number): Promise<TaskEvent[]> {
  const result = await db.query<{ seq: number; payload: TaskEvent['task'] }>(
    'SELECT seq, payload FROM task_events WHERE task_id = $1 AND seq > $2 ORDER BY seq', [id, afterSeq]);
  return result.rows.map((row) => ({ seq: row.seq, task: row.payload }));
}

export async function changeTask(db: Pool, id: string, change: TaskChange, options: { accountId?: number } = {}): Promise<TaskChangeOutcome | null> {
  const terminal = isTerminalStatus(change.status);
  return inTransaction(db, async (client) => {
    // The guarded UPDATE locks the row and re-checks the status after the lock: a racing change
    // (another worker, a cancel) leaves nothing to update, and this one does nothing.
    const updated = await client.query<TaskRow>(
      `UPDATE tasks SET
         status = $2,
         progress = COALESCE($3, progress),
         provider_ref = CASE WHEN $4 THEN $5 ELSE provider_ref END,
         upstream_account_id = CASE WHEN $4 THEN $6 ELSE upstream_account_id END,
         result = CASE WHEN $7 THEN $8::jsonb ELSE result END,
         error = CASE WHEN $9 THEN $10::jsonb ELSE error END,
         actual_credits = COALESCE($11, actual_credits),
         event_seq = event_seq + $12,
         started_at = CASE WHEN $2 <> 'queued' THEN COALESCE(started_at, now()) ELSE started_at END,
         finished_at = CASE WHEN $13 THEN now() ELSE finished_at END,
         updated_at = now()
       WHERE id = $1 AND status = ANY($14::text[]) AND ($15::bigint IS NULL OR account_id = $15)
       RETURNING *`,
      [id, change.status, change.progress ?? null,
        change.providerRef !== undefined, change.providerRef ?? null, change.upstreamAccountId ?? null,
        change.result !== undefined, change.result === undefined || change.result === null ? null : storableJson(change.result),
        change.error !== undefined, change.error === undefined || change.error === null ? null : storableJson(change.error),
        change.actualCredits ?? null, change.silent ? 0 : 1, terminal, [...change.from], options.accountId ?? null],
    );
    const row = updated.rows[0];
    if (!row) return null;
    const event: TaskEvent | undefined = change.silent ? undefined : { seq: row.event_seq, task: toTaskView(row) };
    if (!terminal) {
      if (event) await client.query('INSERT INTO task_events (task_id, seq, status, payload) VALUES ($1, $2, $3, $4)', [row.id, event.seq, row.status, storableJson(event.task)]);
      return event ? { row, event, walletDeltaCredits: 0 } : { row, walletDeltaCredits: 0 };
    }
    // The event, the hold released, and on success the charge with its usage row and the key's
    // lifetime spend: one statement, the last before COMMIT, so the account row is locked briefly.
    const released = row.estimated_credits;
    const charged = change.charge?.credits ?? 0;
    await client.query(SETTLE_TASK, settleTaskValues(row, event, released, change.charge));
    return { row, ...(event ? { event } : {}), walletDeltaCredits: released - charged };
  });
}
