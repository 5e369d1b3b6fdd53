/**
 * Alert rules (issue 22 item 5): thresholds on a key (share of its quota, share of one spend
 * window) and on an account (wallet below an amount, error rate above a share over a window). Each
 * fires once when its figure crosses the threshold and is re-armed when the figure goes back.
 */
import { creditsToUsd } from '../account/credits-to-usd';
import type { StoredAlertRule } from '../db/repositories/alerts';

export const ALERT_KINDS = ['key_quota', 'key_spend_window', 'wallet_below', 'error_rate'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
export const SPEND_WINDOWS = ['5h', '1d', '7d'] as const;
export type SpendWindow = (typeof SPEND_WINDOWS)[number];

/** Webhook event of each kind; `webhook.test` is the test button's. */
export const ALERT_EVENTS: Record<AlertKind, string> = {
  key_quota: 'alert.key_quota',
  key_spend_window: 'alert.key_spend_window',
  wallet_below: 'alert.wallet_below',
  error_rate: 'alert.error_rate',
};
export const WEBHOOK_EVENTS = Object.values(ALERT_EVENTS);
export const TEST_EVENT = 'webhook.test';

/** A stored rule; the repository's kinds and windows are these. */
export type AlertRule = StoredAlertRule;

/**
 * Whether the figure is past the threshold: a share at or above it, a wallet below its amount.
 * No figure (an unlimited quota, too few requests) is never past it.
 */
export function isCrossed(rule: Pick<AlertRule, 'kind' | 'threshold' | 'thresholdCredits'>, value: number | null): boolean {
  if (value === null) return false;
  if (rule.kind === 'wallet_below') return value < (rule.thresholdCredits ?? 0);
  return value >= (rule.threshold ?? Number.POSITIVE_INFINITY);
}

/** The figure as the API shows it: a share, or USD for the wallet. */
function shownValue(rule: AlertRule, value: number | null): number | null {
  if (value === null) return null;
  return rule.kind === 'wallet_below' ? creditsToUsd(value) : value;
}

export function presentAlertRule(rule: AlertRule): Record<string, unknown> {
  return {
    object: 'alert_rule',
    id: rule.id,
    kind: rule.kind,
    event: ALERT_EVENTS[rule.kind],
    api_key_id: rule.apiKeyId,
    window: rule.spendWindow,
    threshold: rule.threshold,
    amount: rule.thresholdCredits === null ? null : creditsToUsd(rule.thresholdCredits),
    window_minutes: rule.windowMinutes,
    min_requests: rule.minRequests,
    state: rule.firing ? 'firing' : 'ok',
    last_value: shownValue(rule, rule.lastValue),
    last_fired_at: rule.lastFiredAt?.toISOString() ?? null,
    created_at: rule.createdAt.toISOString(),
  };
}
