import type { Pool } from 'pg';
import { inTransaction } from '../db/transaction';
import { applyLedgerEntry } from '../db/repositories/ledger';

/** Adds credits through the ledger; returns the balance after. */
export async function topUp(
  db: Pool,
  accountId: number,
  credits: number,
  reference: string | null = null,
  description = 'top-up',
): Promise<number> {
  const result = await inTransaction(db, (client) =>
    applyLedgerEntry(client, { accountId, kind: 'topup', amountCredits: credits, reference, description }),
  );
  return result.balanceAfter;
}
