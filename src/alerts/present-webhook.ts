/** Webhooks and deliveries as the API shows them: never the secret after creation, only its last 4 characters. */
import type { DeliveryRow, WebhookRow } from '../db/repositories/webhooks';

export function presentWebhook(webhook: WebhookRow): Record<string, unknown> {
  return {
    object: 'webhook',
    id: webhook.id,
    url: webhook.url,
    events: webhook.events,
    secret_last4: webhook.secretLast4,
    active: webhook.active,
    created_at: webhook.createdAt.toISOString(),
  };
}

export function presentDelivery(delivery: DeliveryRow): Record<string, unknown> {
  return {
    object: 'webhook_delivery',
    id: delivery.id,
    webhook_id: delivery.webhookId,
    alert_rule_id: delivery.alertRuleId,
    event: delivery.event,
    status: delivery.status,
    attempts: delivery.attempts,
    last_http_status: delivery.lastHttpStatus,
    last_error: delivery.lastError,
    payload: delivery.payload,
    created_at: delivery.createdAt.toISOString(),
    last_attempt_at: delivery.lastAttemptAt?.toISOString() ?? null,
    delivered_at: delivery.deliveredAt?.toISOString() ?? null,
  };
}
