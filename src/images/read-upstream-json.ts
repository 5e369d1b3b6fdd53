/**
 * The body of an upstream media call: JSON on success; on an error status, the provider's error
 * decoded by its protocol's codec (the Chat decoder reads the OpenAI envelope of the images API,
 * Generate-Content's reads google.rpc) so the message and retry hints survive.
 */
import { GatewayError } from '../errors/gateway-error';
import type { Protocol } from '../ir/protocol';
import { CODECS } from '../relay/codec-registry';
import { readUpstreamText, type UpstreamResponse } from '../upstream/upstream-client';

export function decodeUpstreamError(protocol: Protocol, status: number, body: string, headers: UpstreamResponse['headers']): GatewayError {
  return CODECS[protocol].upstream.decodeError(status, body, headers);
}

export async function readUpstreamJson(protocol: Protocol, response: UpstreamResponse): Promise<unknown> {
  const text = await readUpstreamText(response);
  if (response.status < 200 || response.status >= 300) throw decodeUpstreamError(protocol, response.status, text, response.headers);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new GatewayError('upstream_error', 'upstream answered a body that is not JSON', {
      cause: error,
      upstream: { status: response.status, body: text.slice(0, 500) },
    });
  }
}
