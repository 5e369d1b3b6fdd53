/** The Messages codec: inbound (to Messages clients) and upstream (to Messages providers). */
import type { Codec, InboundCodec, UpstreamCodec } from '../codec';
import { messagesPassThroughHeaders } from './pass-through-headers';
import { decodeMessagesError } from './decode-error';
import { decodeMessagesRequest } from './decode-request';
import { decodeMessagesResponse } from './decode-response';
import { encodeMessagesError } from './encode-error';
import { encodeMessagesRequest } from './encode-request';
import { encodeMessagesResponse } from './encode-response';
import { createMessagesPassThroughMeter } from './pass-through-meter';
import { createMessagesStreamDecoder } from './stream-decoder';
import { createMessagesStreamEncoder } from './stream-encoder';
import { messagesCountTokens } from './count-tokens';
import { messagesInboundWire } from './inbound-wire';
import { messagesPassThrough, messagesUpstreamWire } from './upstream-wire';

const inbound: InboundCodec = {
  protocol: 'messages',
  decodeRequest: decodeMessagesRequest,
  encodeResponse: encodeMessagesResponse,
  createStreamEncoder: createMessagesStreamEncoder,
  encodeError: encodeMessagesError,
  streamContentType: () => 'text/event-stream',
  ...messagesInboundWire,
};

const upstream: UpstreamCodec = {
  protocol: 'messages',
  encodeRequest: encodeMessagesRequest,
  decodeResponse: decodeMessagesResponse,
  createStreamDecoder: createMessagesStreamDecoder,
  decodeError: decodeMessagesError,
  ...messagesUpstreamWire,
};

export const messagesCodec: Codec = {
  protocol: 'messages',
  aliases: [],
  inbound,
  upstream,
  createPassThroughMeter: createMessagesPassThroughMeter,
  passThroughHeaders: messagesPassThroughHeaders,
  ...messagesPassThrough,
  countTokens: messagesCountTokens,
};

export {
  encodeMessagesRequest,
  decodeMessagesRequest,
  decodeMessagesResponse,
  encodeMessagesResponse,
  encodeMessagesError,
  decodeMessagesError,
};
export { createMessagesStreamDecoder, createMessagesStreamEncoder, createMessagesPassThroughMeter };
