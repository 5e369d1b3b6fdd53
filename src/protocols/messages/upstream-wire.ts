/** How a Messages upstream is called: its credential and version headers, and the pass-through path and body. */
import type { Codec, UpstreamCodec } from '../codec';
import { DEFAULT_ANTHROPIC_VERSION } from './pass-through-headers';

export const messagesUpstreamWire: Pick<UpstreamCodec, 'nativeJsonSchema' | 'needsInlineImages' | 'authenticate'> = {
  // Structured output goes as a forced tool whose input becomes the text answer.
  nativeJsonSchema: false,
  needsInlineImages: false,
  authenticate(headers, credential) {
    headers['x-api-key'] = credential;
    headers['anthropic-version'] ??= DEFAULT_ANTHROPIC_VERSION;
  },
};

export const messagesPassThrough: Pick<Codec, 'passThroughPath' | 'fixPassThroughBody'> = {
  passThroughPath: (_model, call) => (call.betaQuery ? '/v1/messages?beta=true' : '/v1/messages'),
  fixPassThroughBody(body, upstreamModel) {
    body.model = upstreamModel;
  },
};
