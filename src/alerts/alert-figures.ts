/**
 * The figures alert rules watch that need more than one read: a key's settled spend in each window
 * (the console's gauges) and the account's requests and errors over a window from the request log.
 * A key's quota and the wallet balance are read straight from db/repositories/alerts.
 */
import type { Pool } from 'pg';
import { keyWindows } from '../account/key-windows';
import { accountRequestOutcomes } from '../db/repositories/request-records';
import type { SpendWindow } from './alert-rule';

export interface RequestOutcomes {
  requests: number;
  errors: number;
}

/** Requests and errors of an account since a time: the error-rate rule's data source. */
export type RequestOutcomeSource = (accountId: number, since: Date) => Promise<RequestOutcomes>;

const UNDEFINED_TABLE = '42P01';

/**
 * From `request_records` (the request log, issue 22 item 1): every request that reached
 * authentication, `outcome` ok | error | aborted. Aborts are the client's doing, not errors. Before
 * the request log exists, no figure (the rule stays armed).
 */
export function requestRecordOutcomes(db: Pool): RequestOutcomeSource {
  return async (accountId, since) => {
    try {
      return await accountRequestOutcomes(db, accountId, since);
    } catch (error) {
      if ((error as { code?: string }).code === UNDEFINED_TABLE) return { requests: 0, errors: 0 };
      throw error;
    }
  };
}

/** Share of each window's limit spent, per key of the account (no entry: unlimited window). */
export async function keyWindowShares(db: Pool, accountId: number, nowMs: number): Promise<Map<string, number>> {
  const shares = new Map<string, number>();
  for (const key of await keyWindows(db, accountId, nowMs)) {
    for (const window of key.windows)
      if (window.limit > 0) shares.set(windowShareKey(key.api_key_id, window.name), window.spent / window.limit);
  }
  return shares;
}

export const windowShareKey = (keyId: number, window: SpendWindow) => `${keyId}:${window}`;
