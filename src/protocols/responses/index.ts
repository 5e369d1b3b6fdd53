/** The Responses codec: inbound (clients of `/v1/responses`) and upstream (Responses providers). */
import type { Codec, InboundCodec, UpstreamCodec } from '../codec';
import { responsesPassThroughHeaders } from './pass-through-headers';
import { decodeResponsesError } from './decode-error';
import { decodeResponsesRequest } from './decode-request';
import { decodeResponsesResponse } from './decode-response';
import { encodeResponsesError } from './encode-error';
import { encodeResponsesRequest } from './encode-request';
import { encodeResponsesResponse } from './encode-response';
import { createResponsesPassThroughMeter } from './pass-through-meter';
import { createResponsesStreamDecoder } from './stream-decoder';
import { createResponsesStreamEncoder } from './stream-encoder';
import { responsesCountTokens } from './count-tokens';
import { responsesInboundWire } from './inbound-wire';
import { responsesStreamedRefusal } from './streamed-refusal';
import { responsesPassThrough, responsesUpstreamWire } from './upstream-wire';

const inbound: InboundCodec = {
  protocol: 'responses',
  decodeRequest: decodeResponsesRequest,
  encodeResponse: encodeResponsesResponse,
  createStreamEncoder: createResponsesStreamEncoder,
  encodeError: encodeResponsesError,
  streamedRefusal: responsesStreamedRefusal,
  streamContentType: () => 'text/event-stream',
  ...responsesInboundWire,
};

const upstream: UpstreamCodec = {
  protocol: 'responses',
  encodeRequest: encodeResponsesRequest,
  decodeResponse: decodeResponsesResponse,
  createStreamDecoder: createResponsesStreamDecoder,
  decodeError: decodeResponsesError,
  ...responsesUpstreamWire,
};

export const responsesCodec: Codec = {
  protocol: 'responses',
  aliases: [],
  inbound,
  upstream,
  createPassThroughMeter: createResponsesPassThroughMeter,
  passThroughHeaders: responsesPassThroughHeaders,
  ...responsesPassThrough,
  countTokens: responsesCountTokens,
};
