/**
 * The BullMQ `tasks` queue: one job per task whose id is the task id, so enqueueing is idempotent
 * (a second add of a waiting, active or delayed job is a no-op). The job carries only the id; the
 * task's state lives in PostgreSQL, so any worker can pick it up at any step.
 */
import { Queue, type JobsOptions } from 'bullmq';
import type Redis from 'ioredis';
import type { Dependencies } from '../dependencies';
import { createRedis } from '../redis/connection';

export const TASK_QUEUE_NAME = 'tasks';
export const TASK_JOB_NAME = 'task';

export interface TaskJobData {
  taskId: string;
}

/** Retries are for transient failures (provider 5xx, timeouts, Redis blips); polling uses delays, not attempts. */
export const TASK_JOB_OPTIONS: JobsOptions = {
  attempts: 6,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: true,
  removeOnFail: { age: 7 * 24 * 3600 },
};

export interface TaskQueue {
  enqueue(taskId: string, delayMs?: number): Promise<void>;
  /** The underlying queue (job lookups by the sweeper). */
  readonly queue: Queue<TaskJobData>;
  close(): Promise<void>;
}

export function createTaskQueue(deps: Pick<Dependencies, 'config' | 'redisKeys'>): TaskQueue {
  const connection: Redis = createRedis(deps.config.redis, { waits: true, name: 'task-queue' });
  const queue = new Queue<TaskJobData>(TASK_QUEUE_NAME, { connection, prefix: deps.redisKeys.bullPrefix() });
  queue.on('error', () => undefined);
  return {
    queue,
    async enqueue(taskId, delayMs) {
      await queue.add(TASK_JOB_NAME, { taskId }, { ...TASK_JOB_OPTIONS, jobId: taskId, ...(delayMs ? { delay: delayMs } : {}) });
    },
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}
