/**
 * The billing worker: consumes `billing` jobs (usage events) and settles them in PostgreSQL in
 * batches: the jobs in hand (up to `maxBatch`, gathered for at most `lingerMs`) share ONE
 * transaction; if that transaction fails, each job is retried alone in its own transaction so one
 * bad event cannot hold back the others. A job completes only after its transaction committed, so
 * a worker killed at any point loses nothing: BullMQ's stalled-job check hands its jobs to another
 * worker, and the unique request id makes the retry write nothing twice. After each commit the
 * written request ids are announced on pub/sub for the API processes (see create-usage-recorder).
 */
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { BILLING_QUEUE_NAME } from '../src/billing/billing-queue';
import { settleUsageEvents, type SettlementOutcome } from '../src/billing/settle-usage-events';
import type { UsageEvent } from '../src/billing/usage-event';
import { parseUsageEvent } from '../src/billing/usage-event-schema';
import type { Dependencies } from '../src/dependencies';
import { createRedis } from '../src/redis/connection';
import { MicroBatcher, type BatchItemResult } from './billing-batcher';

export interface BillingWorkerOptions {
  /** Jobs in hand at once; also the default batch size. */
  concurrency: number;
  /** Jobs per transaction at most (default: concurrency). */
  maxBatch?: number;
  /** How long a batch waits for more jobs after its first (default 10 ms). */
  lingerMs?: number;
  /** BullMQ job lock; a killed worker's jobs return to the queue after about this long (default 30 s). */
  lockDurationMs?: number;
  /** How often stalled jobs are looked for (default: half the lock duration). */
  stalledIntervalMs?: number;
  /** Test seam: runs inside each batch transaction just before COMMIT. */
  beforeCommit?: () => Promise<void>;
}

export interface BillingWorker {
  close(): Promise<void>;
}

type WorkerDependencies = Pick<Dependencies, 'config' | 'db' | 'redis' | 'redisKeys' | 'logger'>;

/** PostgreSQL errors that retrying cannot fix: the account is gone (23503), a value is out of range. */
const PERMANENT_PG_CODES = new Set(['23503', '22003', '22P02']);

function isPermanent(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && PERMANENT_PG_CODES.has(code);
}

export async function startBillingWorker(deps: WorkerDependencies, options: BillingWorkerOptions): Promise<BillingWorker> {
  const logger = deps.logger.child({ component: 'billing-worker' });
  const channel = deps.redisKeys.billingSettledChannel();
  const maxBatch = options.maxBatch ?? options.concurrency;

  const announce = (outcomes: SettlementOutcome[]) => {
    if (outcomes.length === 0) return;
    deps.redis.publish(channel, JSON.stringify(outcomes.map((outcome) => outcome.requestId)))
      .catch((error: unknown) => logger.warn({ err: error }, 'announcing settled usage failed; producers will check job states'));
  };

  const settleBatch = async (events: UsageEvent[]): Promise<Array<BatchItemResult<SettlementOutcome>>> => {
    try {
      const outcomes = await settleUsageEvents(deps.db, events, { beforeCommit: options.beforeCommit });
      announce(outcomes);
      return outcomes.map((value) => ({ ok: true, value }));
    } catch (batchError) {
      const failure = (event: UsageEvent, error: unknown): BatchItemResult<SettlementOutcome> => ({
        ok: false,
        error: isPermanent(error) ? new UnrecoverableError(`cannot settle ${event.requestId}: ${(error as Error).message}`) : error,
      });
      const [only] = events;
      if (events.length === 1 && only !== undefined) return [failure(only, batchError)];
      logger.warn({ err: batchError, events: events.length }, 'batch settlement failed; settling its events one by one');
      const results: Array<BatchItemResult<SettlementOutcome>> = [];
      for (const event of events) {
        try {
          const outcomes = await settleUsageEvents(deps.db, [event], { beforeCommit: options.beforeCommit });
          announce(outcomes);
          const [outcome] = outcomes;
          results.push(outcome === undefined ? failure(event, new Error('settlement returned no outcome')) : { ok: true, value: outcome });
        } catch (error) {
          results.push(failure(event, error));
        }
      }
      return results;
    }
  };

  const batcher = new MicroBatcher<UsageEvent, SettlementOutcome>(settleBatch, { maxSize: maxBatch, lingerMs: options.lingerMs ?? 10 });

  const processJob = async (job: Job<unknown>): Promise<'written' | 'duplicate'> => {
    const parsed = parseUsageEvent(job.data);
    if ('error' in parsed) throw new UnrecoverableError(parsed.error);
    const outcome = await batcher.submit(parsed.event);
    return outcome.written ? 'written' : 'duplicate';
  };

  const connection = createRedis(deps.config.redisUrl, { forBullmq: true, name: 'billing-worker' });
  const lockDuration = options.lockDurationMs ?? 30_000;
  const worker = new Worker(BILLING_QUEUE_NAME, processJob, {
    connection,
    prefix: deps.redisKeys.bullPrefix(),
    concurrency: options.concurrency,
    lockDuration,
    stalledInterval: options.stalledIntervalMs ?? Math.max(1_000, Math.floor(lockDuration / 2)),
    // Settlement is idempotent, so a job that stalls again and again (workers killed repeatedly) is
    // retried rather than failed.
    maxStalledCount: 100,
  });
  worker.on('failed', (job, error) => {
    const final = job === undefined || error instanceof UnrecoverableError || job.attemptsMade >= (job.opts.attempts ?? 1);
    if (final) logger.error({ err: error, jobId: job?.id, usageEvent: job?.data }, 'billing job failed for good');
    else logger.warn({ err: error, jobId: job.id, attempt: job.attemptsMade }, 'billing job failed; will retry');
  });
  worker.on('error', (error) => logger.warn({ err: error }, 'billing worker error'));
  await worker.waitUntilReady();

  return {
    async close() {
      // Finishes the jobs in hand (their batches commit) before letting go of the queue.
      await worker.close();
      await batcher.idle();
      connection.disconnect();
    },
  };
}
