/**
 * The headers of a provider's error answer that a client reads (its retry delay, the provider's
 * request id), kept when the answer is forwarded as the upstream said it. Never the upstream's
 * rate-limit counters (they count the gateway's account; the gateway's accounting headers count the
 * caller's key), never `x-request-id` (the gateway's own), never hop-by-hop or length headers.
 */
type HeaderBag = Record<string, string | string[] | undefined>;

const KEPT = new Set(['content-type', 'retry-after', 'retry-after-ms', 'request-id']);

export function upstreamErrorHeaders(headers: HeaderBag): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || !KEPT.has(lower)) continue;
    kept[lower] = Array.isArray(value) ? value.join(', ') : value;
  }
  return kept;
}
