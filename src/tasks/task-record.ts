/** A task row as stored, and the public shape callers see (query, cancel, stream events). */
import type { TaskRequest } from './task-request';
import type { TaskKind, TaskStatus } from './task-status';
import type { StoredTask } from '../db/repositories/tasks';

export interface TaskMedia {
  /** S3 object key (internal). */
  key: string;
  /** Presigned GET URL, valid 24 hours from when it was made. */
  url: string;
  contentType: string;
  bytes?: number;
  /** Batch images: which prompt, and which of its `n` images. */
  promptIndex?: number;
  imageIndex?: number;
  revisedPrompt?: string;
}

export interface TaskResult {
  items: TaskMedia[];
}

export interface TaskError {
  /** Normalized reason: provider_error, content_filtered, deadline_exceeded, cancelled_upstream, ... */
  code: string;
  message: string;
}

/** A `tasks` row with its columns' domain types. */
export interface TaskRow extends StoredTask {
  kind: TaskKind;
  status: TaskStatus;
  request: TaskRequest;
  result: TaskResult | null;
  error: TaskError | null;
}

export interface TaskView {
  task_id: string;
  object: 'task';
  kind: TaskKind;
  model: string;
  status: TaskStatus;
  /** 0–100. */
  progress: number;
  /** Unix seconds. */
  created_at: number;
  started_at: number | null;
  finished_at: number | null;
  updated_at: number;
  deadline_at: number;
  /** Set once the task succeeded. */
  result: { urls: string[]; items: Array<{ url: string; content_type: string; prompt_index?: number; revised_prompt?: string }> } | null;
  error: { code: string; message: string } | null;
  estimated_credits: number;
  /** Set once settled: the charge on success, 0 after a failure or cancel. */
  actual_credits: number | null;
}

const seconds = (date: Date) => Math.floor(date.getTime() / 1000);

export function toTaskView(row: TaskRow): TaskView {
  const items = row.status === 'succeeded' && row.result ? row.result.items : null;
  return {
    task_id: row.id,
    object: 'task',
    kind: row.kind,
    model: row.model,
    status: row.status,
    progress: row.progress,
    created_at: seconds(row.created_at),
    started_at: row.started_at ? seconds(row.started_at) : null,
    finished_at: row.finished_at ? seconds(row.finished_at) : null,
    updated_at: seconds(row.updated_at),
    deadline_at: seconds(row.deadline_at),
    result: items
      ? {
          urls: items.map((item) => item.url),
          items: items.map((item) => ({
            url: item.url,
            content_type: item.contentType,
            ...(item.promptIndex !== undefined ? { prompt_index: item.promptIndex } : {}),
            ...(item.revisedPrompt !== undefined ? { revised_prompt: item.revisedPrompt } : {}),
          })),
        }
      : null,
    error: row.error ? { code: row.error.code, message: row.error.message } : null,
    estimated_credits: row.estimated_credits,
    actual_credits: row.actual_credits,
  };
}
