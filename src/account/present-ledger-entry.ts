/** One row of `GET /api/v1/me/billing/transactions`: signed amount and the balance after it. */
import { creditsToUsd } from './credits-to-usd';
import type { LedgerEntryRecord } from '../db/repositories/ledger';

export function presentLedgerEntry(entry: LedgerEntryRecord): Record<string, unknown> {
  return {
    object: 'billing_transaction',
    id: entry.id,
    kind: entry.kind,
    amount: creditsToUsd(entry.amountCredits),
    amount_credits: entry.amountCredits,
    balance_after: creditsToUsd(entry.balanceAfterCredits),
    balance_after_credits: entry.balanceAfterCredits,
    // A charge's reference is its request id (see the usage rows); a hold's, its task id.
    reference: entry.reference,
    api_key_id: entry.apiKeyId,
    description: entry.description,
    created_at: entry.createdAt.toISOString(),
  };
}
