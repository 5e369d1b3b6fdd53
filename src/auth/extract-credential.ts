/**
 * Where each surface reads the API key from (interface section 5). Never from the body.
 * - Messages, Chat Completions and the gateway's own surfaces: `x-api-key` wins over `Authorization: Bearer`.
 * - Responses: `Authorization: Bearer` only.
 * - Generate-Content: `x-goog-api-key`, then `?key=`, then the other header shapes (`x-api-key`, Bearer),
 *   since clients of that family send one of the first two and generic clients the last two.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Protocol } from '../ir/protocol';

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

function queryKey(query: Record<string, unknown>): string | undefined {
  const raw = query.key;
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed ? trimmed : undefined;
}

export function extractCredential(surface: Protocol | 'gateway', headers: IncomingHttpHeaders, query: Record<string, unknown>): string | undefined {
  switch (surface) {
    case 'responses':
      return bearer(headers);
    case 'generate-content':
      return headerValue(headers, 'x-goog-api-key') ?? queryKey(query) ?? headerValue(headers, 'x-api-key') ?? bearer(headers);
    case 'messages':
    case 'chat':
    case 'gateway':
      return headerValue(headers, 'x-api-key') ?? bearer(headers);
  }
}
