/** Request bodies of the alert and webhook routes (zod; parseBody turns the first issue into a 400 naming the field). */
import { z } from 'zod';
import type { NewAlertRule } from '../db/repositories/alerts';
import { SPEND_WINDOWS, WEBHOOK_EVENTS } from './alert-rule';

const share = z
  .number()
  .gt(0, { error: 'must be a share above 0 and at most 1' })
  .max(1, { error: 'must be a share above 0 and at most 1' });
const keyId = z.number().int().positive();

export const createAlertRuleSchema = z.discriminatedUnion(
  'kind',
  [
    z.strictObject({ kind: z.literal('key_quota'), api_key_id: keyId, threshold: share }),
    z.strictObject({ kind: z.literal('key_spend_window'), api_key_id: keyId, window: z.enum(SPEND_WINDOWS), threshold: share }),
    z.strictObject({ kind: z.literal('wallet_below'), amount: z.number().positive().max(1e9) }),
    z.strictObject({
      kind: z.literal('error_rate'),
      threshold: share,
      window_minutes: z
        .number()
        .int()
        .min(1)
        .max(7 * 24 * 60)
        .default(15),
      min_requests: z.number().int().min(1).max(1_000_000).default(20),
    }),
  ],
  { error: 'kind: must be one of key_quota, key_spend_window, wallet_below, error_rate' },
);
export type CreateAlertRule = z.output<typeof createAlertRuleSchema>;

/** The row to insert for a new rule: the fields its kind has, the wallet amount in credits. */
export function newAlertRule(accountId: number, input: CreateAlertRule): NewAlertRule {
  return {
    accountId,
    kind: input.kind,
    apiKeyId: 'api_key_id' in input ? input.api_key_id : null,
    spendWindow: 'window' in input ? input.window : null,
    threshold: 'threshold' in input ? input.threshold : null,
    thresholdCredits: 'amount' in input ? Math.round(input.amount * 1_000_000) : null,
    windowMinutes: 'window_minutes' in input ? input.window_minutes : null,
    minRequests: 'min_requests' in input ? input.min_requests : null,
  };
}

const events = z
  .array(z.enum(WEBHOOK_EVENTS as [string, ...string[]]))
  .min(1)
  .max(WEBHOOK_EVENTS.length);
const secret = z.string().min(16, { error: 'must be at least 16 characters' }).max(200);
const url = z.string().min(1).max(2048);

export const createWebhookSchema = z.strictObject({ url, events: events.optional(), secret: secret.optional() });
export const updateWebhookSchema = z.strictObject({
  url: url.optional(),
  events: events.optional(),
  secret: secret.optional(),
  active: z.boolean().optional(),
});
