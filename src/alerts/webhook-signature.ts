/**
 * Webhook signatures (docs/webhooks.md): `Webhook-Signature: t=<unix seconds>,v1=<hex>` where the hex
 * is HMAC-SHA256 with the webhook's secret of `<unix seconds>.<raw body>`. The receiver recomputes it
 * and refuses an old timestamp (replays).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'webhook-signature';
export const DELIVERY_ID_HEADER = 'webhook-id';
export const EVENT_HEADER = 'webhook-event';

export function signWebhook(secret: string, timestampSeconds: number, body: string): string {
  const digest = createHmac('sha256', secret).update(`${timestampSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${timestampSeconds},v1=${digest}`;
}

/** What a receiver does (used by tests and documented): true when the header signs this body with this secret. */
export function verifyWebhookSignature(secret: string, header: string, body: string): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  if (!match) return false;
  const expected = Buffer.from(signWebhook(secret, Number(match[1]), body).slice(-64), 'hex');
  return timingSafeEqual(expected, Buffer.from(match[2]!, 'hex'));
}
