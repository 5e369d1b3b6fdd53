/**
 * A task change and what must follow its COMMIT: the event published for live streams, and the
 * Redis wallet cache told about the money that moved (the released hold, the charge).
 */
import type { Dependencies } from '../dependencies';
import type { WalletCache } from '../limits/wallet-cache';
import { publishTaskEvent } from './publish-task-event';
import { changeTask, type TaskChange, type TaskChangeOutcome } from './change-task';

export type TaskCommitDependencies = Pick<Dependencies, 'db' | 'redis' | 'redisKeys' | 'logger'> & { wallet: WalletCache };

export async function commitTaskChange(
  deps: TaskCommitDependencies,
  taskId: string,
  change: TaskChange,
  options: { accountId?: number } = {},
): Promise<TaskChangeOutcome | null> {
  const outcome = await changeTask(deps.db, taskId, change, options);
  if (!outcome) return null;
  if (outcome.event) {
    // Losing a publish loses nothing: streams re-read the database on every heartbeat.
    await publishTaskEvent(deps.redis, deps.redisKeys, taskId, outcome.event).catch((error: unknown) =>
      deps.logger.warn({ err: error, taskId }, 'publishing a task event failed'),
    );
  }
  if (outcome.walletDeltaCredits !== 0) {
    // A lost adjustment is repaired by the billing reconciler from the ledger.
    await deps.wallet
      .adjust(outcome.row.account_id, outcome.walletDeltaCredits)
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, taskId }, 'adjusting the wallet cache failed; the reconciler will repair it'),
      );
  }
  return outcome;
}
