/**
 * The ledger: every balance change is a row with the balance after it, written in the same
 * transaction as the wallet update, so the wallet always equals the sum of its rows.
 * Entries are idempotent on (kind, reference): replaying an event writes nothing twice. The table is
 * partitioned by time, so that uniqueness is a claim in `ledger_references`, inserted with the entry.
 */
import type { PoolClient } from 'pg';

export type LedgerKind = 'topup' | 'refund' | 'adjustment' | 'charge' | 'hold' | 'hold_release';

export interface LedgerEntryInput {
  accountId: number;
  kind: LedgerKind;
  /** Signed credits: charges and holds negative, top-ups, refunds and hold releases positive. */
  amountCredits: number;
  /** Idempotency reference (request id of a charge, task id of a hold). Null: never deduplicated. */
  reference: string | null;
  apiKeyId?: number | null;
  description?: string | null;
}

export interface LedgerEntryResult {
  /** False when an entry with the same (kind, reference) already existed: nothing was written. */
  applied: boolean;
  balanceAfter: number;
  entryId: number | null;
}

/**
 * Applies one entry inside the caller's transaction (`client` must be in BEGIN … COMMIT).
 * Locks the account row, so concurrent entries serialize per account.
 */
export async function applyLedgerEntry(client: PoolClient, entry: LedgerEntryInput): Promise<LedgerEntryResult> {
  if (!Number.isSafeInteger(entry.amountCredits)) throw new Error('ledger amounts are integer credits');
  if (entry.reference !== null) {
    const existing = await client.query<{ id: number; balance_after: number }>(
      'SELECT id, balance_after FROM ledger_entries WHERE kind = $1 AND reference = $2',
      [entry.kind, entry.reference],
    );
    if (existing.rows[0]) return { applied: false, balanceAfter: existing.rows[0].balance_after, entryId: existing.rows[0].id };
  }
  const heldDelta = entry.kind === 'hold' ? -entry.amountCredits : entry.kind === 'hold_release' ? -entry.amountCredits : 0;
  const updated = await client.query<{ balance_credits: number }>(
    `UPDATE accounts SET balance_credits = balance_credits + $2, held_credits = held_credits + $3
      WHERE id = $1 RETURNING balance_credits`,
    [entry.accountId, entry.amountCredits, heldDelta],
  );
  const balanceAfter = updated.rows[0]?.balance_credits;
  if (balanceAfter === undefined) throw new Error(`account ${entry.accountId} not found`);
  const inserted = await client.query<{ id: number }>(
    `WITH claimed AS (
       INSERT INTO ledger_references (kind, reference) SELECT $2, $5 WHERE $5::text IS NOT NULL
       ON CONFLICT DO NOTHING RETURNING reference
     )
     INSERT INTO ledger_entries (account_id, kind, amount_credits, balance_after, reference, api_key_id, description)
     SELECT $1, $2, $3, $4, $5, $6, $7 WHERE $5::text IS NULL OR EXISTS (SELECT 1 FROM claimed)
     RETURNING id`,
    [entry.accountId, entry.kind, entry.amountCredits, balanceAfter, entry.reference, entry.apiKeyId ?? null, entry.description ?? null],
  );
  if (!inserted.rows[0]) {
    // A concurrent writer won the unique race after our check: undo our wallet change.
    throw new Error('ledger entry raced with a duplicate; retry the transaction');
  }
  return { applied: true, balanceAfter, entryId: inserted.rows[0].id };
}
