/**
 * The accounting headers of interface section 8, from the admission figures. Semantics (see
 * docs/admission.md):
 * - X-RateLimit-Limit / -Remaining (USD) and -Reset (Unix seconds) describe the tightest limited
 *   window: the smallest remaining budget (a tie goes to the window that frees last). Unlimited
 *   windows are never reported; when all three are unlimited the three headers are omitted.
 *   Reset is when that window next gains room: for an exhausted window, when enough spend has left
 *   it to have room again; otherwise when its oldest spend leaves it; for an empty window, now.
 * - X-Quota-Remaining-Credits: what the key can still spend over its life: the key quota left,
 *   capped by the wallet; with an unlimited quota, the wallet.
 * - X-Org-Quota-Remaining-Credits (organisation keys only): the organisation's wallet.
 * All figures are settled spend: open reservations of requests in flight are not subtracted, so a
 * failed request leaves every figure as it was.
 */
import type { AuthenticatedKey } from '../auth/authenticated-key';
import type { AdmissionFigures } from './admission-figures';
import { SPEND_WINDOWS, type WindowName } from './spend-windows';

/** The gateway has no token-rate limit; the Messages token headers report this constant. */
export const NO_TOKEN_LIMIT = 1_000_000_000;

/** Integer credits → USD text with up to six decimals and no float rounding (50000 → "0.05"). */
export function formatUsd(credits: number): string {
  const sign = credits < 0 ? '-' : '';
  const absolute = Math.abs(Math.trunc(credits));
  const whole = Math.floor(absolute / 1_000_000);
  const fraction = String(absolute % 1_000_000)
    .padStart(6, '0')
    .replace(/0+$/, '');
  return `${sign}${whole}${fraction ? `.${fraction}` : ''}`;
}

export interface BucketStanding {
  name: WindowName;
  limitCredits: number;
  usedCredits: number;
  remainingCredits: number;
  resetAtMs: number;
}

export function tightestBucket(key: AuthenticatedKey, figures: AdmissionFigures): BucketStanding | undefined {
  let tightest: BucketStanding | undefined;
  for (const window of SPEND_WINDOWS) {
    const limit = window.limit(key);
    if (limit <= 0) continue;
    const { used, resetAtMs } = figures.windows[window.name];
    const candidate = { name: window.name, limitCredits: limit, usedCredits: used, remainingCredits: Math.max(limit - used, 0), resetAtMs };
    if (
      !tightest ||
      candidate.remainingCredits < tightest.remainingCredits ||
      (candidate.remainingCredits === tightest.remainingCredits && candidate.resetAtMs > tightest.resetAtMs)
    ) {
      tightest = candidate;
    }
  }
  return tightest;
}

export function quotaRemainingCredits(key: AuthenticatedKey, figures: AdmissionFigures): number {
  const wallet = Math.max(figures.walletCredits, 0);
  if (key.quotaCredits <= 0) return wallet;
  return Math.min(Math.max(key.quotaCredits - figures.spentCredits, 0), wallet);
}

export function rateLimitHeaders(bucket: BucketStanding, options: { includeReset: boolean }): Record<string, string> {
  const headers: Record<string, string> = {
    'X-RateLimit-Limit': formatUsd(bucket.limitCredits),
    'X-RateLimit-Remaining': formatUsd(bucket.remainingCredits),
  };
  if (options.includeReset) headers['X-RateLimit-Reset'] = String(Math.ceil(bucket.resetAtMs / 1000));
  return headers;
}

export function buildAccountingHeaders(
  key: AuthenticatedKey,
  figures: AdmissionFigures,
  options: { includeReset?: boolean } = {},
): Record<string, string> {
  const bucket = tightestBucket(key, figures);
  const headers: Record<string, string> = bucket ? rateLimitHeaders(bucket, { includeReset: options.includeReset ?? true }) : {};
  headers['X-Quota-Remaining-Credits'] = String(quotaRemainingCredits(key, figures));
  if (key.accountKind === 'organization') headers['X-Org-Quota-Remaining-Credits'] = String(Math.max(figures.walletCredits, 0));
  return headers;
}

/**
 * The Messages `x-ratelimit-*` family. Requests describe the account's concurrency, the only
 * request-count limit the gateway has: limit = the cap, remaining = free slots, reset = seconds until
 * a slot frees (0 when one is free; 1 otherwise, as slots free when requests end, not on a clock).
 * Tokens: no token-rate limit exists, so limit and remaining are both NO_TOKEN_LIMIT.
 */
export function buildMessagesRateLimitHeaders(key: AuthenticatedKey, figures: AdmissionFigures): Record<string, string> {
  const remaining = Math.max(key.concurrencyCap - figures.leases, 0);
  return {
    'x-ratelimit-limit-requests': String(key.concurrencyCap),
    'x-ratelimit-remaining-requests': String(remaining),
    'x-ratelimit-reset-requests': remaining > 0 ? '0' : '1',
    'x-ratelimit-limit-tokens': String(NO_TOKEN_LIMIT),
    'x-ratelimit-remaining-tokens': String(NO_TOKEN_LIMIT),
  };
}
