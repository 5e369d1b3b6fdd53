/**
 * Where a webhook may point: the outbound guard's rule (src/net), the same as image URLs: http(s)
 * only, no credentials in the URL, and every address the host resolves to public unless the operator
 * allows private targets (WEBHOOK_ALLOW_PRIVATE). The sender connects to the checked address (no
 * second lookup to rebind).
 */
import { GatewayError } from '../errors/gateway-error';
import { addressPolicy } from '../net/address-policy';
import { OutboundRefusal, resolveOutboundTarget } from '../net/outbound-fetch';

export interface WebhookTarget {
  url: URL;
  address: string;
}

export async function checkWebhookUrl(raw: string, options: { allowPrivate: boolean }): Promise<WebhookTarget> {
  try {
    return await resolveOutboundTarget(raw, addressPolicy(options));
  } catch (error) {
    if (error instanceof OutboundRefusal) throw new GatewayError('invalid_request', `url: ${error.message}`, { param: 'url' });
    throw error;
  }
}
