/**
 * Task rows and their events (`tasks`, `task_events`). The statements that also move money (a task
 * inserted with its hold, a task's settlement) are in ledger.ts, the one module money moves through.
 * Rows come back as stored; callers name their row type (`findTask<TaskRow>`), as `query<T>` would.
 */
import type { PoolClient } from 'pg';
import type { Queryable } from '../queryable';

/** A `tasks` row (jsonb columns parsed). */
export interface StoredTask {
  id: string;
  account_id: number;
  api_key_id: number | null;
  kind: string;
  model: string;
  status: string;
  progress: number;
  request: unknown;
  provider_ref: string | null;
  upstream_account_id: number | null;
  result: unknown;
  error: unknown;
  estimated_credits: number;
  actual_credits: number | null;
  event_seq: number;
  deadline_at: Date;
  created_at: Date;
  started_at: Date | null;
  finished_at: Date | null;
  updated_at: Date;
}

export async function findTask<Row extends StoredTask = StoredTask>(db: Queryable, id: string): Promise<Row | undefined> {
  const result = await db.query<Row>('SELECT * FROM tasks WHERE id = $1', [id]);
  return result.rows[0];
}

/** Another account's task is indistinguishable from a missing one. */
export async function findAccountTask<Row extends StoredTask = StoredTask>(
  db: Queryable,
  id: string,
  accountId: number,
): Promise<Row | undefined> {
  const result = await db.query<Row>('SELECT * FROM tasks WHERE id = $1 AND account_id = $2', [id, accountId]);
  return result.rows[0];
}

/** Events after `afterSeq`, in order (SSE resume). */
export async function listTaskEvents<Payload = unknown>(
  db: Queryable,
  taskId: string,
  afterSeq: number,
): Promise<Array<{ seq: number; payload: Payload }>> {
  const result = await db.query<{ seq: number; payload: Payload }>(
    'SELECT seq, payload FROM task_events WHERE task_id = $1 AND seq > $2 ORDER BY seq',
    [taskId, afterSeq],
  );
  return result.rows.map((row) => ({ seq: row.seq, payload: row.payload }));
}

/** Active tasks (queued or running) whose deadline passed before `before`, oldest deadline first. */
export async function listOverdueTaskIds(db: Queryable, before: Date, limit: number): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    "SELECT id FROM tasks WHERE status IN ('queued', 'running') AND deadline_at < $1 ORDER BY deadline_at LIMIT $2",
    [before, limit],
  );
  return result.rows.map((row) => row.id);
}

/** Active tasks (queued or running) not updated since `before`, least recently updated first. */
export async function listStaleTaskIds(db: Queryable, before: Date, limit: number): Promise<string[]> {
  const result = await db.query<{ id: string }>(
    "SELECT id FROM tasks WHERE status IN ('queued', 'running') AND updated_at < $1 ORDER BY updated_at LIMIT $2",
    [before, limit],
  );
  return result.rows.map((row) => row.id);
}

/** A status change; a field left undefined keeps its column. */
export interface TaskUpdate {
  id: string;
  /** The statuses the change applies to; a task in another (or of another account) is left untouched. */
  from: readonly string[];
  accountId?: number;
  status: string;
  progress?: number;
  /** The provider's operation and the upstream account running it, set together. */
  provider?: { ref: string | null; upstreamAccountId: number | null };
  /** JSON text, or null to clear. */
  resultJson?: string | null;
  errorJson?: string | null;
  actualCredits?: number;
  /** Whether an event is appended (the event sequence moves on). */
  appendsEvent: boolean;
  /** A terminal status: `finished_at` is set. */
  finishes: boolean;
}

const UPDATE_TASK = `UPDATE tasks SET
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
 RETURNING *`;

/**
 * The guarded UPDATE, in the caller's transaction: it locks the row and re-checks the status after
 * the lock, so a racing change (another worker, a cancel) leaves nothing to update (undefined).
 */
export async function updateTask<Row extends StoredTask = StoredTask>(client: PoolClient, update: TaskUpdate): Promise<Row | undefined> {
  const updated = await client.query<Row>(UPDATE_TASK, [
    update.id,
    update.status,
    update.progress ?? null,
    update.provider !== undefined,
    update.provider?.ref ?? null,
    update.provider?.upstreamAccountId ?? null,
    update.resultJson !== undefined,
    update.resultJson ?? null,
    update.errorJson !== undefined,
    update.errorJson ?? null,
    update.actualCredits ?? null,
    update.appendsEvent ? 1 : 0,
    update.finishes,
    [...update.from],
    update.accountId ?? null,
  ]);
  return updated.rows[0];
}

/** Appends a task's event (payload as JSON text). */
export async function insertTaskEvent(
  db: Queryable,
  event: { taskId: string; seq: number; status: string; payloadJson: string },
): Promise<void> {
  await db.query('INSERT INTO task_events (task_id, seq, status, payload) VALUES ($1, $2, $3, $4)', [
    event.taskId,
    event.seq,
    event.status,
    event.payloadJson,
  ]);
}
