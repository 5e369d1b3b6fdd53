/** Credential and protocol headers for an upstream account. Client credentials never go upstream. */
import type { Protocol } from '../ir/protocol';
import { credentialHeaderOverride } from '../upstream/provider-presets';
import { CODECS } from './codec-registry';

export function upstreamHeaders(
  protocol: Protocol,
  credential: string,
  extra: Record<string, string> = {},
  provider?: string,
): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...extra };
  const override = credentialHeaderOverride(provider);
  if (override !== undefined) {
    headers[override] = credential; // the provider's own header (Azure OpenAI's api-key)
    return headers;
  }
  CODECS[protocol].upstream.authenticate(headers, credential);
  return headers;
}
