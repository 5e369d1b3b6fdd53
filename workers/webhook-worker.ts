/**
 * The `webhooks` queue (issue 22 item 5): delivers webhook deliveries (one job each, retried by
 * BullMQ with exponential backoff; every attempt is recorded on the delivery for the log), and runs
 * the periodic `evaluate-alerts` job, which fires and re-arms alert rules and enqueues the
 * deliveries of the rules that fired (plus any delivery left pending whose job was lost).
 */
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import { requestRecordOutcomes, type RequestOutcomeSource } from '../src/alerts/alert-figures';
import { TEST_EVENT } from '../src/alerts/alert-rule';
import { attemptDelivery } from '../src/alerts/deliver-webhook';
import { evaluateAlerts, type AlertEvaluation } from '../src/alerts/evaluate-alerts';
import {
  createWebhookQueue,
  DELIVER_JOB_NAME,
  EVALUATE_JOB_NAME,
  WEBHOOK_QUEUE_NAME,
  type DeliverJobData,
} from '../src/alerts/webhook-queue';
import { loadDeliveryTarget, recordAttempt, stalePendingDeliveries } from '../src/db/repositories/webhooks';
import type { Dependencies } from '../src/dependencies';
import { createRedis } from '../src/redis/connection';

const EVALUATE_SCHEDULER_ID = 'alerts-evaluate';
/** A pending delivery this old with no job behind it is enqueued again. */
const STALE_PENDING_MS = 5 * 60_000;

type WebhookWorkerDependencies = Pick<Dependencies, 'config' | 'db' | 'redisKeys' | 'crypto' | 'logger' | 'clock'>;

export interface WebhookWorkerOptions {
  concurrency?: number;
  /** The error-rate rules' data source (default: the request log). */
  outcomes?: RequestOutcomeSource;
  /** How often alerts are evaluated (default ALERT_EVALUATE_EVERY_MS); 0: not scheduled (tests call `evaluate`). */
  evaluateEveryMs?: number;
}

async function deliver(deps: WebhookWorkerDependencies, job: Job<DeliverJobData>): Promise<void> {
  const target = await loadDeliveryTarget(deps.db, job.data.deliveryId);
  if (!target || target.delivery.status !== 'pending') return; // deleted, or already settled by an earlier run
  if (!target.webhook.active && target.delivery.event !== TEST_EVENT) {
    await recordAttempt(deps.db, target.delivery.id, { httpStatus: null, error: 'the webhook was disabled', status: 'failed' });
    return;
  }
  const result = await attemptDelivery(
    { config: deps.config, crypto: deps.crypto, nowMs: deps.clock.now() },
    target.delivery,
    target.webhook,
  );
  const lastAttempt = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
  if (result.ok) {
    await recordAttempt(deps.db, target.delivery.id, { httpStatus: result.httpStatus, error: null, status: 'delivered' });
    return;
  }
  await recordAttempt(deps.db, target.delivery.id, {
    httpStatus: result.httpStatus,
    error: result.error,
    status: lastAttempt || result.permanent ? 'failed' : 'pending',
  });
  if (result.permanent) throw new UnrecoverableError(result.error);
  throw new Error(result.error);
}

export async function startWebhookWorker(
  deps: WebhookWorkerDependencies,
  options: WebhookWorkerOptions = {},
): Promise<{ close(): Promise<void>; evaluate(): Promise<AlertEvaluation> }> {
  const logger = deps.logger.child({ component: 'webhooks' });
  const producer = createWebhookQueue(deps);
  const outcomes = options.outcomes ?? requestRecordOutcomes(deps.db);
  const evaluate = async (): Promise<AlertEvaluation> => {
    const evaluation = await evaluateAlerts(deps, outcomes);
    await producer.enqueue([...evaluation.deliveryIds, ...(await stalePendingDeliveries(deps.db, STALE_PENDING_MS, 500))]);
    if (evaluation.fired.length > 0) logger.info({ fired: evaluation.fired, deliveries: evaluation.deliveryIds.length }, 'alerts fired');
    return evaluation;
  };
  const everyMs = options.evaluateEveryMs ?? deps.config.alertEvaluateEveryMs;
  if (everyMs > 0) {
    await producer.queue.upsertJobScheduler(
      EVALUATE_SCHEDULER_ID,
      { every: everyMs },
      {
        name: EVALUATE_JOB_NAME,
        data: {},
        opts: { removeOnComplete: { count: 10 }, removeOnFail: { count: 100 } },
      },
    );
  }
  const connection = createRedis(deps.config.redis, { waits: true, name: 'webhook-worker' });
  const worker = new Worker(
    WEBHOOK_QUEUE_NAME,
    async (job: Job) => {
      if (job.name === DELIVER_JOB_NAME) return deliver(deps, job as Job<DeliverJobData>);
      if (job.name === EVALUATE_JOB_NAME) return evaluate();
      throw new UnrecoverableError(`no handler for webhooks job ${job.name}`);
    },
    { connection, prefix: deps.redisKeys.bullPrefix(), concurrency: options.concurrency ?? 8 },
  );
  worker.on('failed', (job, error) =>
    logger.warn(
      { job: job?.name, deliveryId: (job?.data as Partial<DeliverJobData> | undefined)?.deliveryId, err: error.message },
      'webhooks job failed',
    ),
  );
  worker.on('error', (error) => logger.warn({ err: error }, 'webhook worker error'));
  await worker.waitUntilReady();
  return {
    evaluate,
    async close() {
      await worker.close();
      await producer.close();
      connection.disconnect();
    },
  };
}
