/**
 * Durable settlement of a batch of usage events, in ONE PostgreSQL transaction: the usage rows, a
 * `charge` ledger entry per new row that moves the wallet, and each key's lifetime spend, written by
 * the ledger (`writeUsageEvents` in db/repositories/ledger.ts: a replayed event inserts nothing and
 * is charged nothing; locks in a fixed order so concurrent batches never deadlock).
 */
import type { Pool } from 'pg';
import { inTransaction } from '../db/transaction';
import { writeUsageEvents, type SettlementOutcome } from '../db/repositories/ledger';
import type { UsageEvent } from './usage-event';

export interface SettleOptions {
  /** Test seam: runs inside the open transaction just before COMMIT (e.g. to kill a worker mid-batch). */
  beforeCommit?: () => Promise<void>;
}

/** Settles a batch in its own transaction; all or nothing. */
export async function settleUsageEvents(
  db: Pool,
  events: readonly UsageEvent[],
  options: SettleOptions = {},
): Promise<SettlementOutcome[]> {
  return inTransaction(db, async (client) => {
    const outcomes = await writeUsageEvents(client, events);
    await options.beforeCommit?.();
    return outcomes;
  });
}
