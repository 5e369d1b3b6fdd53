/**
 * One delivery attempt: the payload as JSON, signed, POSTed to the webhook's checked address with a
 * time limit and no redirects. Any 2xx is delivered; anything else (or no answer) is a failed
 * attempt for the queue to retry, except a target the URL rules refuse, which no retry can fix.
 */
import type { SecretCrypto } from '../auth/secret-crypto';
import type { Config } from '../config';
import { isGatewayError } from '../errors/gateway-error';
import { createPinnedAgent } from '../net/pinned-agent';
import { checkWebhookUrl } from './webhook-url';
import { DELIVERY_ID_HEADER, EVENT_HEADER, signWebhook, SIGNATURE_HEADER } from './webhook-signature';
import type { DeliveryRow, WebhookRow } from '../db/repositories/webhooks';

export type AttemptResult = { ok: true; httpStatus: number } | { ok: false; httpStatus: number | null; error: string; permanent: boolean };

export async function attemptDelivery(
  deps: { config: Config; crypto: SecretCrypto; nowMs: number },
  delivery: DeliveryRow,
  webhook: WebhookRow,
): Promise<AttemptResult> {
  let target;
  try {
    target = await checkWebhookUrl(webhook.url, { allowPrivate: deps.config.webhooks.allowPrivate });
  } catch (error) {
    return { ok: false, httpStatus: null, error: isGatewayError(error) ? error.message : String(error), permanent: isGatewayError(error) };
  }
  const body = JSON.stringify(delivery.payload);
  const signature = signWebhook(deps.crypto.decrypt(webhook.secretEncrypted), Math.floor(deps.nowMs / 1000), body);
  const agent = createPinnedAgent(target.address);
  try {
    const response = await agent.request({
      origin: target.url.origin,
      path: target.url.pathname + target.url.search,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'gateway-webhooks/1',
        [SIGNATURE_HEADER]: signature,
        [DELIVERY_ID_HEADER]: String(delivery.id),
        [EVENT_HEADER]: delivery.event,
      },
      body,
      signal: AbortSignal.timeout(deps.config.webhooks.timeoutMs),
    });
    await response.body.dump();
    if (response.statusCode >= 200 && response.statusCode < 300) return { ok: true, httpStatus: response.statusCode };
    return { ok: false, httpStatus: response.statusCode, error: `the receiver answered HTTP ${response.statusCode}`, permanent: false };
  } catch (error) {
    return { ok: false, httpStatus: null, error: (error as Error).message.slice(0, 300), permanent: false };
  } finally {
    await agent.close().catch(() => undefined);
  }
}
