/** How a Responses upstream is called: its credential, and the pass-through path and body. */
import type { Codec, UpstreamCodec } from '../codec';
import { setBearerCredential } from '../shared/bearer-credential';

export const responsesUpstreamWire: Pick<UpstreamCodec, 'nativeJsonSchema' | 'needsInlineImages' | 'authenticate'> = {
  nativeJsonSchema: true,
  needsInlineImages: false,
  authenticate: setBearerCredential,
};

export const responsesPassThrough: Pick<Codec, 'passThroughPath' | 'fixPassThroughBody'> = {
  passThroughPath: (_model, call) => (call.endpoint === 'compact' ? '/v1/responses/compact' : '/v1/responses'),
  fixPassThroughBody(body, upstreamModel) {
    body.model = upstreamModel;
  },
};
