/**
 * A task's state change: one transaction that checks the current status (`from`), updates the row,
 * appends the event to `task_events`, and on a terminal change moves money: the hold released and, on
 * success, the charge with its usage row (db/repositories/ledger.ts). Two workers racing on one task
 * cannot both finish it: the second finds the status changed.
 */
import type { Pool } from 'pg';
import { inTransaction } from '../db/transaction';
import { settleTask, type TaskSettlement } from '../db/repositories/ledger';
import { insertTaskEvent, updateTask } from '../db/repositories/tasks';
import type { UsageEvent } from '../billing/usage-event';
import type { TaskEvent } from './task-event';
import { toTaskView, type TaskError, type TaskResult, type TaskRow } from './task-record';
import { isTerminalStatus, type TaskStatus } from './task-status';
import { storableJson } from '../http/storable-text';

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

/** JSON text of a column to set (null clears it); undefined leaves it. */
const jsonColumn = (value: object | null | undefined): string | null | undefined =>
  value === undefined ? undefined : value === null ? null : storableJson(value);

/** What the settlement of a terminal change writes: the event, the hold released, the charge. */
function taskSettlement(
  row: TaskRow,
  event: TaskEvent | undefined,
  releasedCredits: number,
  charge: UsageEvent | undefined,
): TaskSettlement {
  return {
    taskId: row.id,
    eventSeq: row.event_seq,
    status: row.status,
    eventJson: event ? storableJson(event.task) : null,
    accountId: row.account_id,
    apiKeyId: row.api_key_id,
    releasedCredits,
    chargeCredits: charge?.credits ?? 0,
    releaseDescription: `hold released: task ${row.status}`,
    chargeDescription: `${row.model} (${charge?.protocol ?? 'tasks'})`,
    writesUsage: charge !== undefined,
    usage: {
      model: charge?.model ?? row.model,
      protocol: charge?.protocol ?? 'tasks',
      upstreamAccountId: charge?.upstreamAccountId ?? null,
      images: charge?.images ?? 0,
      videoSeconds: charge?.videoSeconds ?? 0,
      startedAtMs: charge?.startedAt ?? 0,
    },
  };
}

export async function changeTask(
  db: Pool,
  id: string,
  change: TaskChange,
  options: { accountId?: number } = {},
): Promise<TaskChangeOutcome | null> {
  const terminal = isTerminalStatus(change.status);
  return inTransaction(db, async (client) => {
    const row = await updateTask<TaskRow>(client, {
      id,
      from: change.from,
      status: change.status,
      finishes: terminal,
      appendsEvent: !change.silent,
      ...(options.accountId !== undefined ? { accountId: options.accountId } : {}),
      ...(change.progress !== undefined ? { progress: change.progress } : {}),
      ...(change.providerRef !== undefined
        ? { provider: { ref: change.providerRef, upstreamAccountId: change.upstreamAccountId ?? null } }
        : {}),
      ...(change.actualCredits !== undefined ? { actualCredits: change.actualCredits } : {}),
      resultJson: jsonColumn(change.result),
      errorJson: jsonColumn(change.error),
    });
    if (!row) return null;
    const event: TaskEvent | undefined = change.silent ? undefined : { seq: row.event_seq, task: toTaskView(row) };
    if (!terminal) {
      if (event)
        await insertTaskEvent(client, { taskId: row.id, seq: event.seq, status: row.status, payloadJson: storableJson(event.task) });
      return event ? { row, event, walletDeltaCredits: 0 } : { row, walletDeltaCredits: 0 };
    }
    // The event, the hold released, and on success the charge with its usage row and the key's
    // lifetime spend: one statement, the last before COMMIT, so the account row is locked briefly.
    const released = row.estimated_credits;
    const charged = change.charge?.credits ?? 0;
    await settleTask(client, taskSettlement(row, event, released, change.charge));
    return { row, ...(event ? { event } : {}), walletDeltaCredits: released - charged };
  });
}
