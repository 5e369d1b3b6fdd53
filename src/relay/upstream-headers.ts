/** Credential and protocol headers for an upstream account. Client credentials never go upstream. */
import type { Protocol } from '../ir/protocol';
import { credentialHeaderOverride } from '../upstream/provider-presets';

export function upstreamHeaders(protocol: Protocol, credential: string, extra: Record<string, string> = {}, provider?: string): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
  const override = credentialHeaderOverride(provider);
  if (override !== undefined) {
    headers[override] = credential; // the provider's own header (Azure OpenAI's api-key)
    return headers;
  }
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
