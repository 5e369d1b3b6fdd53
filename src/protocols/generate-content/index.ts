/** The Generate-Content codec: the native protocol of family 3 (`/v1beta/models/{model}:generateContent`). */
import type { Codec, InboundStreamOptions } from '../codec';
import { decodeGenerateContentError } from './decode-generate-content-error';
import { decodeGenerateContentRequest } from './decode-generate-content-request';
import { decodeGenerateContentResponse } from './decode-generate-content-response';
import { encodeGenerateContentError } from './encode-generate-content-error';
import { encodeGenerateContentRequest } from './encode-generate-content-request';
import { encodeGenerateContentResponse } from './encode-generate-content-response';
import { createGenerateContentPassThroughMeter } from './generate-content-pass-through-meter';
import { createGenerateContentStreamDecoder } from './generate-content-stream-decoder';
import { createGenerateContentStreamEncoder } from './generate-content-stream-encoder';
import { generateContentCountTokens } from './generate-content-count-tokens';
import { generateContentInboundWire } from './generate-content-inbound-wire';
import { generateContentPassThrough, generateContentUpstreamWire } from './generate-content-upstream-wire';

export const generateContentCodec: Codec = {
  protocol: 'generate-content',
  aliases: ['generate_content', 'generatecontent'],
  inbound: {
    protocol: 'generate-content',
    decodeRequest: decodeGenerateContentRequest,
    encodeResponse: (response, options) => encodeGenerateContentResponse(response, options),
    createStreamEncoder: createGenerateContentStreamEncoder,
    encodeError: encodeGenerateContentError,
    streamContentType: (options: InboundStreamOptions) => (options.sse ? 'text/event-stream' : 'application/json'),
    ...generateContentInboundWire,
  },
  upstream: {
    protocol: 'generate-content',
    encodeRequest: encodeGenerateContentRequest,
    decodeResponse: decodeGenerateContentResponse,
    createStreamDecoder: createGenerateContentStreamDecoder,
    decodeError: decodeGenerateContentError,
    ...generateContentUpstreamWire,
  },
  createPassThroughMeter: createGenerateContentPassThroughMeter,
  passThroughHeaders: () => ({}),
  ...generateContentPassThrough,
  countTokens: generateContentCountTokens,
};

export { SKIP_THOUGHT_SIGNATURE } from './encode-generate-content-request';
