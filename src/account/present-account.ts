/** The body of `GET /api/v1/me/account`. Money in USD (JSON number) and in integer credits side by side. */
import type { ManagementPrincipal } from '../auth/management-auth';
import { concurrencyCap } from '../auth/concurrency-cap';
import { creditsToUsd } from './credits-to-usd';
import type { AccountRecord } from './read-account';

export function presentAccount(account: AccountRecord, principal: ManagementPrincipal): Record<string, unknown> {
  return {
    object: 'account',
    id: account.id,
    name: account.name,
    kind: account.kind,
    // Keys of an organisation draw on the organisation's wallet: this one.
    organization: account.kind === 'organization' ? { id: account.id, name: account.name } : null,
    user: account.user,
    key: account.key,
    authenticated_via: principal.via,
    tier: account.tier,
    concurrency_cap: concurrencyCap(account.tier, account.concurrencyCap),
    currency: 'USD',
    // Settled balance (the ledger): a request's charge shows once its billing job is written,
    // normally well under a second after the response; response headers show it at once.
    balance: creditsToUsd(account.balanceCredits),
    balance_credits: account.balanceCredits,
    // Held by running tasks, already deducted from the balance until they settle.
    held: creditsToUsd(account.heldCredits),
    held_credits: account.heldCredits,
    created_at: account.createdAt.toISOString(),
  };
}
