/**
 * The usage events still in Redis: the usage streams of every shard (entries are deleted once written, so every
 * entry is a charge the API processes settled in Redis that PostgreSQL may not have yet) and the
 * dead-letter streams (events a worker could never write). Read page by page; an entry written and
 * deleted while we read may be missed (the reconciler measures twice before it repairs anything).
 */
import type { UnsettledCharge } from '../src/billing/counter-drift';
import { parseUsageEvent } from '../src/billing/usage-event-schema';
import type { Dependencies } from '../src/dependencies';
import { ALL_USAGE_SHARDS } from '../src/redis/keys';

const PAGE = 1_000;

export interface UnsettledEvents {
  charges: UnsettledCharge[];
  /** Request ids of events in the dead-letter stream (their charges are included above). */
  failed: Set<string>;
}

async function readStream(
  deps: Pick<Dependencies, 'redis'>,
  stream: string,
  into: Map<string, UnsettledCharge>,
  onEvent?: (requestId: string) => void,
): Promise<void> {
  let start = '-';
  for (;;) {
    const page = await deps.redis.xrange(stream, start, '+', 'COUNT', PAGE);
    for (const [, fields] of page) {
      const at = fields.indexOf('e');
      let parsed: ReturnType<typeof parseUsageEvent> | undefined;
      try {
        parsed = at < 0 ? undefined : parseUsageEvent(JSON.parse(fields[at + 1] ?? ''));
      } catch {
        parsed = undefined;
      }
      // A malformed event was never charged by the worker and never will be: nothing to expect.
      if (!parsed || 'error' in parsed) continue;
      const { event } = parsed;
      into.set(event.requestId, {
        requestId: event.requestId,
        accountId: event.accountId,
        apiKeyId: event.apiKeyId,
        credits: event.credits,
        startedAt: event.startedAt,
      });
      onEvent?.(event.requestId);
    }
    if (page.length < PAGE) return;
    start = `(${page[page.length - 1]![0]}`;
  }
}

export async function readUnsettledEvents(deps: Pick<Dependencies, 'redis' | 'redisKeys'>): Promise<UnsettledEvents> {
  const charges = new Map<string, UnsettledCharge>();
  const failed = new Set<string>();
  for (const shard of ALL_USAGE_SHARDS) {
    await readStream(deps, deps.redisKeys.usageStream(shard), charges);
    await readStream(deps, deps.redisKeys.usageDeadLetters(shard), charges, (requestId) => failed.add(requestId));
  }
  return { charges: [...charges.values()], failed };
}
