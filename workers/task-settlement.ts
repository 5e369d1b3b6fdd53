/**
 * The terminal changes a worker makes, each one guarded transaction (see changeTask) followed by
 * the publish and the wallet-cache update: success (charge the actual cost, release the hold) and
 * failure (release the hold).
 */
import { mediaUsageEvent } from '../src/billing/charge-call';
import { commitTaskChange } from '../src/tasks/commit-task-change';
import type { TaskError, TaskMedia, TaskRow } from '../src/tasks/task-record';
import type { TaskChange, TaskChangeOutcome } from '../src/tasks/change-task';
import type { TaskContext } from './task-context';

export async function applyAndPublish(context: TaskContext, taskId: string, change: TaskChange): Promise<TaskChangeOutcome | null> {
  return commitTaskChange({ ...context.deps, wallet: context.wallet }, taskId, change);
}

export async function failTask(context: TaskContext, task: TaskRow, error: TaskError): Promise<boolean> {
  const outcome = await applyAndPublish(context, task.id, { from: ['queued', 'running'], status: 'failed', error, actualCredits: 0 });
  if (outcome) context.deps.logger.info({ taskId: task.id, code: error.code, reason: error.message }, 'task failed');
  return outcome !== null;
}

export async function succeedTask(
  context: TaskContext,
  task: TaskRow,
  input: {
    items: TaskMedia[];
    credits: number;
    upstreamAccountId: number | null;
    images: number;
    videoSeconds: number;
  },
): Promise<boolean> {
  const charge = mediaUsageEvent({
    requestId: task.id,
    accountId: task.account_id,
    apiKeyId: task.api_key_id,
    model: task.model,
    protocol: 'tasks',
    upstreamAccountId: input.upstreamAccountId,
    images: input.images,
    videoSeconds: input.videoSeconds,
    credits: input.credits,
    startedAt: task.created_at.getTime(),
  });
  const outcome = await applyAndPublish(context, task.id, {
    from: ['running'],
    status: 'succeeded',
    progress: 100,
    result: { items: input.items },
    actualCredits: input.credits,
    charge,
  });
  return outcome !== null;
}
