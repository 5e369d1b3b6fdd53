/**
 * The client's request headers a codec forwards to a native upstream of its protocol: those its
 * `wanted` rule names, never a credential (any name that carries one) nor a hop-by-hop header.
 */
type HeaderBag = Record<string, string | string[] | undefined>;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'trailers',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'content-type',
  'accept-encoding',
]);
const CREDENTIAL = /authorization|api-key|apikey|token|secret|cookie|password|credential/;

export function forwardedHeaders(headers: HeaderBag, wanted: (name: string) => boolean): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || CREDENTIAL.test(lower) || !wanted(lower)) continue;
    forwarded[lower] = Array.isArray(value) ? value.join(', ') : value;
  }
  return forwarded;
}
