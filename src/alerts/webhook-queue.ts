/**
 * The BullMQ `webhooks` queue: one job per delivery (job id `delivery-<id>`, so adding it again while
 * it waits or backs off is a no-op), retried with exponential backoff; and the periodic
 * `evaluate-alerts` job. The delivery's state lives in PostgreSQL.
 */
import { Queue, type JobsOptions } from 'bullmq';
import type { Config } from '../config';
import type { Dependencies } from '../dependencies';
import { createRedis } from '../redis/connection';

export const WEBHOOK_QUEUE_NAME = 'webhooks';
export const DELIVER_JOB_NAME = 'deliver';
export const EVALUATE_JOB_NAME = 'evaluate-alerts';

export interface DeliverJobData {
  deliveryId: number;
}

export function deliveryJobOptions(config: Config): JobsOptions {
  return {
    attempts: Math.max(1, config.webhooks.maxAttempts),
    backoff: { type: 'exponential', delay: config.webhooks.backoffMs },
    removeOnComplete: { count: 1000 },
    removeOnFail: { count: 1000 },
  };
}

export interface WebhookQueue {
  enqueue(deliveryIds: readonly number[]): Promise<void>;
  readonly queue: Queue;
  close(): Promise<void>;
}

export function createWebhookQueue(deps: Pick<Dependencies, 'config' | 'redisKeys'>): WebhookQueue {
  const connection = createRedis(deps.config.redis, { waits: true, name: 'webhook-queue' });
  const queue = new Queue(WEBHOOK_QUEUE_NAME, { connection, prefix: deps.redisKeys.bullPrefix() });
  queue.on('error', () => undefined);
  const options = deliveryJobOptions(deps.config);
  return {
    queue,
    async enqueue(deliveryIds) {
      if (deliveryIds.length === 0) return;
      await queue.addBulk(
        deliveryIds.map((deliveryId) => ({
          name: DELIVER_JOB_NAME,
          data: { deliveryId } satisfies DeliverJobData,
          opts: { ...options, jobId: `delivery-${deliveryId}` },
        })),
      );
    },
    async close() {
      await queue.close();
      connection.disconnect();
    },
  };
}
