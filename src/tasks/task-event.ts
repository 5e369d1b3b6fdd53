/** One published state change of a task: its sequence number (the SSE id) and the task as it became. */
import type { TaskView } from './task-record';

export interface TaskEvent {
  seq: number;
  task: TaskView;
}

export function parseTaskEvent(message: string): TaskEvent | undefined {
  try {
    const parsed = JSON.parse(message) as unknown;
    if (parsed === null || typeof parsed !== 'object') return undefined;
    const { seq, task } = parsed as { seq?: unknown; task?: unknown };
    if (typeof seq !== 'number' || task === null || typeof task !== 'object') return undefined;
    return { seq, task: task as TaskView };
  } catch {
    return undefined;
  }
}
