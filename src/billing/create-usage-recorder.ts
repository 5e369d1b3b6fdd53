/**
 * The API side of settlement: usage events are entries of the Redis usage streams (one per shard of
 * accounts, src/redis/keys.ts) that billing workers consume. Normally the settlement script appends a call's event with its counters (`hold`, one
 * round trip); events it could not append, and `record`ed ones, are appended by the durable stream
 * producer, which keeps every event until a billing worker confirms it is in PostgreSQL. See
 * docs/billing.md.
 */
import type { Dependencies } from '../dependencies';
import { writtenRequestIds } from '../db/repositories/ledger';
import { createDurableStreamProducer, type DurableStreamOptions, type DurableStreamProducer } from '../redis/durable-stream-producer';
import type { UsageEvent, UsageRecorder } from './usage-event';

export type UsageRecorderOptions = DurableStreamOptions;
export type UsageRecorderHandle = DurableStreamProducer<UsageEvent> & UsageRecorder;

type RecorderDependencies = Pick<Dependencies, 'config' | 'redisKeys' | 'logger' | 'clock' | 'subscriber' | 'db'>;

export function createUsageRecorder(deps: RecorderDependencies, options: UsageRecorderOptions = {}): UsageRecorderHandle {
  return createDurableStreamProducer<UsageEvent>(
    deps,
    {
      name: 'billing-producer',
      streamOf: (event) => deps.redisKeys.accountUsageStream(event.accountId),
      channel: deps.redisKeys.billingSettledChannel(),
      written: async (requestIds) => writtenRequestIds(deps.db, requestIds),
    },
    options,
  );
}
