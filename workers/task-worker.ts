/**
 * The task worker: consumes the BullMQ `tasks` queue (one job per task, job id = task id). Each
 * run of a job is one step of its task (see task-step); a step that waits for the provider moves
 * its job to the delayed set and frees the slot. A worker killed at any point loses nothing:
 * BullMQ's stalled-job check hands the job to another worker, the step re-reads the task from
 * PostgreSQL, media keys are deterministic, and the final change is guarded, so the task ends
 * exactly once with one charge.
 */
import { DelayedError, Worker, type Job } from 'bullmq';
import { createUpstreamClient } from '../src/upstream/upstream-client';
import { createUpstreamDirectory } from '../src/upstream/upstream-directory';
import type { Dependencies } from '../src/dependencies';
import { toGatewayError } from '../src/http/to-gateway-error';
import { createWalletCache } from '../src/limits/wallet-cache';
import { createRedis } from '../src/redis/connection';
import { findTask } from '../src/db/repositories/tasks';
import type { TaskRow } from '../src/tasks/task-record';
import { createTaskQueue, TASK_JOB_OPTIONS, TASK_QUEUE_NAME, type TaskJobData } from '../src/tasks/task-queue';
import { createVideoOperations } from '../src/tasks/video-operations';
import { defaultPollDelayMs, type TaskContext, type TaskWorkerHooks } from './task-context';
import { failTask } from './task-settlement';
import { runTaskStep } from './task-step';
import { sweepTasks } from './task-sweeper';

export interface TaskWorkerOptions {
  /** Jobs in hand at once (a waiting task holds none). */
  concurrency: number;
  /** BullMQ job lock; a killed worker's job returns to the queue after about this long (default 30 s). */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for (default: half the lock duration). */
  stalledIntervalMs?: number;
  /** How often the sweeper runs (default 30 s; 0 disables it). */
  sweepIntervalMs?: number;
  /** An active task untouched this long is checked for a live job (default: 60 s or two sweep periods). */
  sweepStaleMs?: number;
  /** Poll cadence override (default: the interface's 2 s for the first minute, then 5 s). */
  pollDelayMs?: (elapsedMs: number) => number;
  hooks?: TaskWorkerHooks;
}

export interface TaskWorker {
  close(): Promise<void>;
}

function attemptsAllowed(job: Job<TaskJobData>): number {
  return job.opts.attempts ?? TASK_JOB_OPTIONS.attempts ?? 1;
}

export async function startTaskWorker(deps: Dependencies, options: TaskWorkerOptions): Promise<TaskWorker> {
  const logger = deps.logger.child({ component: 'task-worker' });
  const upstreamClient = createUpstreamClient({ ...deps.config.upstream, connections: 64 });
  const upstreams = createUpstreamDirectory({ db: deps.db, crypto: deps.crypto, clock: deps.clock });
  const context: TaskContext = {
    deps,
    images: { config: deps.config, metrics: deps.metrics, logger, upstreams, upstreamClient },
    video: createVideoOperations(upstreamClient, { pollTimeoutMs: deps.config.upstream.firstByteTimeoutMs }),
    wallet: createWalletCache(deps),
    hooks: options.hooks ?? {},
    pollDelayMs: options.pollDelayMs ?? defaultPollDelayMs,
  };
  const queue = createTaskQueue(deps);
  const lockDuration = options.lockDurationMs ?? 30_000;

  const processor = async (job: Job<TaskJobData>, token?: string): Promise<void> => {
    const { taskId } = job.data;
    let outcome;
    try {
      outcome = await runTaskStep(context, taskId);
    } catch (thrown) {
      const error = toGatewayError(thrown);
      const lastAttempt = job.attemptsMade + 1 >= attemptsAllowed(job);
      // A client-side refusal (bad parameters, content filter) will not change on retry.
      const permanent = error.status >= 400 && error.status < 500 && error.kind !== 'rate_limit' && error.kind !== 'timeout';
      logger.warn(
        {
          taskId,
          attempt: job.attemptsMade + 1,
          kind: error.kind,
          message: error.message,
          err: error.kind === 'internal' ? error.cause : undefined,
        },
        'task step failed',
      );
      if (permanent || lastAttempt) {
        const task = await findTask<TaskRow>(deps.db, taskId);
        if (task) {
          await failTask(context, task, {
            code: error.kind === 'internal' ? 'internal_error' : permanent ? 'provider_rejected' : 'provider_error',
            message: error.kind === 'internal' ? 'the task failed inside the gateway' : error.message,
          });
        }
        return;
      }
      throw thrown;
    }
    if (outcome.kind === 'wait') {
      await job.moveToDelayed(Date.now() + outcome.delayMs, token);
      throw new DelayedError();
    }
  };

  const connection = createRedis(deps.config.redis, { waits: true, name: 'task-worker' });
  const worker = new Worker<TaskJobData>(TASK_QUEUE_NAME, processor, {
    connection,
    prefix: deps.redisKeys.bullPrefix(),
    concurrency: Math.max(1, options.concurrency),
    lockDuration,
    stalledInterval: options.stalledIntervalMs ?? Math.max(1_000, Math.floor(lockDuration / 2)),
    // A task survives several worker deaths; a job that stalls more often than this is failed by
    // BullMQ and revived by the sweeper.
    maxStalledCount: 5,
  });
  worker.on('error', (error) => logger.warn({ err: error }, 'task worker connection error'));

  const sweepInterval = options.sweepIntervalMs ?? 30_000;
  let sweeping = false;
  const sweeper =
    sweepInterval > 0
      ? setInterval(() => {
          if (sweeping) return;
          sweeping = true;
          sweepTasks(context, queue, { staleMs: options.sweepStaleMs ?? Math.max(60_000, sweepInterval * 2), graceMs: 60_000, batch: 200 })
            .catch((error: unknown) => logger.warn({ err: error }, 'task sweep failed'))
            .finally(() => {
              sweeping = false;
            });
        }, sweepInterval)
      : undefined;
  sweeper?.unref();

  await worker.waitUntilReady();
  return {
    async close() {
      if (sweeper) clearInterval(sweeper);
      await worker.close();
      await queue.close();
      connection.disconnect();
      await upstreamClient.close();
    },
  };
}
