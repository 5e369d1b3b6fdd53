/**
 * The billing queue's catalog entry: its name, its one job name and the job options every
 * producer uses, so producers and the worker agree in one place.
 */
import type { JobsOptions } from 'bullmq';

export const BILLING_QUEUE_NAME = 'billing';
export const USAGE_JOB_NAME = 'usage';

/**
 * Job options of a usage event. The job id is the request id, set per job: enqueueing twice is a
 * no-op while the job exists. Retries back off exponentially (0.5 s … about 17 min over 12
 * attempts) so a PostgreSQL outage of minutes is ridden out. Completed jobs are kept ten minutes so
 * producers can confirm them by state; failed jobs a week, for an operator.
 */
export const USAGE_JOB_OPTIONS: JobsOptions = {
  attempts: 12,
  backoff: { type: 'exponential', delay: 500 },
  removeOnComplete: { age: 600, count: 50_000 },
  removeOnFail: { age: 7 * 24 * 3600 },
};

