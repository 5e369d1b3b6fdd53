/**
 * An operator's top-up, refund or adjustment: the ledger entry with the operator's reason (the truth), then
 * the Redis wallet cache admission reads, so the change is spendable (or binding) at once.
 */
import type { Dependencies } from '../dependencies';
import { applyLedgerEntry } from '../db/repositories/ledger';
import { inTransaction } from '../db/transaction';
import { createWalletCache } from '../limits/wallet-cache';

export async function applyOperatorEntry(
  deps: Pick<Dependencies, 'db' | 'redis' | 'redisKeys'>,
  input: {
    accountId: number;
    kind: 'topup' | 'refund' | 'adjustment';
    credits: number;
    reason: string;
    operatorUserId: number;
  },
): Promise<{ balanceCredits: number; entryId: number | null }> {
  const entry = await inTransaction(deps.db, (client) =>
    applyLedgerEntry(client, {
      accountId: input.accountId,
      kind: input.kind,
      amountCredits: input.credits,
      reference: null,
      description: `${input.reason} (operator user ${input.operatorUserId})`,
    }),
  );
  // Redis unreachable: the reconciler rebuilds the cache from the ledger.
  await createWalletCache(deps)
    .adjust(input.accountId, input.credits)
    .catch(() => null);
  return { balanceCredits: entry.balanceAfter, entryId: entry.entryId };
}
