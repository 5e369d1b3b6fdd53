/**
 * Reads the API key from the places a surface names (interface section 5): each inference protocol's
 * codec lists its own (`InboundCodec.credentials`), the gateway's surfaces use GATEWAY_CREDENTIALS.
 * Never from the body.
 */
import type { IncomingHttpHeaders } from 'node:http';

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function bearer(headers: IncomingHttpHeaders): string | undefined {
  const value = headerValue(headers, 'authorization');
  const match = value === undefined ? null : /^Bearer\s+(\S+)$/i.exec(value);
  return match ? match[1] : undefined;
}

function queryValue(query: Record<string, unknown>, name: string): string | undefined {
  const raw = query[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed ? trimmed : undefined;
}

/** Where a key may be, in order of precedence (an inference protocol's list is its codec's `credentials`). */
export type CredentialLocation = { header: string } | { bearer: true } | { query: string };

/** The gateway's own surfaces: `x-api-key` wins over `Authorization: Bearer`. */
export const GATEWAY_CREDENTIALS: readonly CredentialLocation[] = [{ header: 'x-api-key' }, { bearer: true }];

export function extractCredential(
  locations: readonly CredentialLocation[],
  headers: IncomingHttpHeaders,
  query: Record<string, unknown>,
): string | undefined {
  for (let index = 0; index < locations.length; index += 1) {
    const location = locations[index];
    const value =
      'header' in location
        ? headerValue(headers, location.header)
        : 'query' in location
          ? queryValue(query, location.query)
          : bearer(headers);
    if (value !== undefined) return value;
  }
  return undefined;
}
