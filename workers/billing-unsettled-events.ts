/**
 * The usage events still in the billing queue (waiting, active, delayed, prioritized, failed): charges the
 * API processes have settled in Redis that PostgreSQL may not have yet. Read page by page; a job
 * that moves between states while we read may be seen twice (deduplicated) or missed (the
 * reconciler measures twice before it repairs anything).
 */
import type { JobType, Queue } from 'bullmq';
import type { UnsettledCharge } from '../src/billing/counter-drift';
import { parseUsageEvent } from '../src/billing/usage-event-schema';

const UNFINISHED_STATES: JobType[] = ['waiting', 'active', 'delayed', 'prioritized', 'waiting-children'];
const PAGE = 1_000;

export interface UnsettledEvents {
  charges: UnsettledCharge[];
  /** Request ids of jobs that exhausted their attempts (their charges are included above). */
  failed: Set<string>;
}

async function readState(queue: Queue, states: JobType[], into: Map<string, UnsettledCharge>, onJob?: (requestId: string) => void): Promise<void> {
  for (let start = 0; ; start += PAGE) {
    const jobs = await queue.getJobs(states, start, start + PAGE - 1, true);
    for (const job of jobs) {
      const parsed = parseUsageEvent(job.data);
      // A malformed event was never charged by the worker and never will be: nothing to expect.
      if ('error' in parsed) continue;
      const { event } = parsed;
      into.set(event.requestId, { requestId: event.requestId, accountId: event.accountId, apiKeyId: event.apiKeyId, credits: event.credits, startedAt: event.startedAt });
      onJob?.(event.requestId);
    }
    if (jobs.length < PAGE) return;
  }
}

export async function readUnsettledEvents(queue: Queue): Promise<UnsettledEvents> {
  const charges = new Map<string, UnsettledCharge>();
  const failed = new Set<string>();
  await readState(queue, UNFINISHED_STATES, charges);
  await readState(queue, ['failed'], charges, (requestId) => failed.add(requestId));
  return { charges: [...charges.values()], failed };
}
