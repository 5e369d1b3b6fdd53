/** Credential and protocol headers for an upstream account. Client credentials never go upstream. */
import type { Protocol } from '../ir/protocol';

export function upstreamHeaders(protocol: Protocol, credential: string, extra: Record<string, string> = {}): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
  switch (protocol) {
    case 'messages':
      headers['x-api-key'] = credential;
      headers['anthropic-version'] ??= '2023-06-01';
      break;
    case 'generate-content':
      headers['x-goog-api-key'] = credential;
      break;
    case 'chat':
    case 'responses':
      headers.authorization = `Bearer ${credential}`;
      break;
  }
  return headers;
}
