/**
 * Where a webhook may point: http(s) only, and never a private, loopback, link-local or unspecified
 * address unless the operator allows private targets (WEBHOOK_ALLOW_PRIVATE), the same rule as
 * image URLs. The ONE place this is decided, so a stronger shared guard can replace it. The host is
 * resolved once; the sender connects to the checked address (no second lookup to rebind).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { GatewayError } from '../errors/gateway-error';
import { isPrivateAddress } from '../relay/inline-remote-images';

export interface WebhookTarget { url: URL; address: string }

export async function checkWebhookUrl(raw: string, options: { allowPrivate: boolean }): Promise<WebhookTarget> {
  const refuse = (message: string) => new GatewayError('invalid_request', `url: ${message}`, { param: 'url' });
  let url: URL;
  try { url = new URL(raw); } catch { throw refuse('not a valid URL'); }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw refuse('must be http or https');
  if (url.username || url.password) throw refuse('must not carry credentials');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const address = isIP(host) ? host : (await lookup(host).catch(() => { throw refuse(`host ${host} does not resolve`); })).address;
  if (!options.allowPrivate && isPrivateAddress(address)) throw refuse('points to a private or loopback address');
  return { url, address };
}
