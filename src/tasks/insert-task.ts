/**
 * A submitted task stored: the row (status queued, event 1) and its estimate held on the wallet, in
 * ONE statement (db/repositories/ledger.ts): the account row, which every hold, release and charge of
 * the account updates, is locked only while PostgreSQL runs it, never across a client round trip.
 */
import type { Pool } from 'pg';
import { insertTaskWithHold } from '../db/repositories/ledger';
import type { TaskChangeOutcome } from './change-task';
import type { TaskEvent } from './task-event';
import { toTaskView, type TaskRow } from './task-record';
import type { TaskRequest } from './task-request';
import type { TaskKind } from './task-status';
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

export async function insertTask(db: Pool, task: NewTask, now: Date): Promise<TaskChangeOutcome> {
  const row: TaskRow = {
    id: task.id,
    account_id: task.accountId,
    api_key_id: task.apiKeyId,
    kind: task.kind,
    model: task.model,
    status: 'queued',
    progress: 0,
    request: task.request,
    provider_ref: null,
    upstream_account_id: null,
    result: null,
    error: null,
    estimated_credits: task.estimatedCredits,
    actual_credits: null,
    event_seq: 1,
    deadline_at: task.deadlineAt,
    created_at: now,
    started_at: null,
    finished_at: null,
    updated_at: now,
  };
  const event: TaskEvent = { seq: 1, task: toTaskView(row) };
  await insertTaskWithHold(db, {
    id: task.id,
    accountId: task.accountId,
    apiKeyId: task.apiKeyId,
    kind: task.kind,
    model: task.model,
    requestJson: storableJson(task.request),
    estimatedCredits: task.estimatedCredits,
    deadlineAt: task.deadlineAt,
    now,
    eventJson: storableJson(event.task),
    description: `hold for ${task.kind} task (${task.model})`,
  });
  return { row, event, walletDeltaCredits: -task.estimatedCredits };
}
