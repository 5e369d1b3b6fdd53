/**
 * A media URL an upstream answered with (an image by URL, a finished video): fetched only when it is
 * on the upstream account's own origin (its base URL is the operator's choice, private or not) or
 * when every address its host resolves to is public, so a provider's answer cannot point the
 * gateway at an internal host or the cloud metadata address. The fetch then connects to the
 * checked address (`connectTo` of the upstream client's call): no second lookup can rebind it. The
 * upstream client follows no redirects, so there is no further hop to check.
 */
import { addressPolicy } from './address-policy';
import { OutboundRefusal, resolveOutboundTarget } from './outbound-fetch';

const PUBLIC_ONLY = addressPolicy({ allowPrivate: false });

/**
 * Checks the URL; returns the address the connection must go to, or undefined on the upstream's own
 * origin (reached as every call to that upstream is).
 */
export async function checkUpstreamMediaUrl(rawUrl: string, upstreamBaseUrl: string): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    throw new OutboundRefusal('invalid_url', 'the upstream answered a media URL that is not a valid URL');
  }
  if (url.origin === new URL(upstreamBaseUrl).origin) return undefined;
  return (await resolveOutboundTarget(rawUrl, PUBLIC_ONLY)).address;
}
