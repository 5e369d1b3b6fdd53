/**
 * The safety net under the queue, run periodically by every task worker (all its actions are
 * idempotent, so several sweepers at once are harmless):
 * - an active task past its deadline (plus a grace period) whose job never woke is failed;
 * - an active task with no live job (the enqueue after submit failed, Redis lost its data, or the
 *   job died in the failed set) gets its job back.
 */
import { findTask, listOverdueTaskIds, listStaleTaskIds } from '../src/db/repositories/tasks';
import type { TaskRow } from '../src/tasks/task-record';
import type { TaskQueue } from '../src/tasks/task-queue';
import type { TaskContext } from './task-context';
import { failTask } from './task-settlement';

export interface SweepOptions {
  /** An active task untouched this long is checked for a job. */
  staleMs: number;
  /** Overdue tasks are failed this long after their deadline (their own job normally does it first). */
  graceMs: number;
  batch: number;
}

export async function sweepTasks(
  context: TaskContext,
  queue: TaskQueue,
  options: SweepOptions,
): Promise<{ failed: number; requeued: number }> {
  const { db } = context.deps;
  const now = context.deps.clock.now();
  let failed = 0;
  let requeued = 0;
  const overdue = await listOverdueTaskIds(db, new Date(now - options.graceMs), options.batch);
  for (const id of overdue) {
    const task = await findTask<TaskRow>(db, id);
    if (task && (await failTask(context, task, { code: 'deadline_exceeded', message: 'the task did not finish before its deadline' })))
      failed++;
  }
  const stale = await listStaleTaskIds(db, new Date(now - options.staleMs), options.batch);
  for (const id of stale) {
    const job = await queue.queue.getJob(id);
    if (job) {
      const state = await job.getState();
      if (state !== 'failed' && state !== 'completed' && state !== 'unknown') continue;
      await job.remove().catch(() => undefined);
    }
    await queue.enqueue(id);
    requeued++;
  }
  return { failed, requeued };
}
