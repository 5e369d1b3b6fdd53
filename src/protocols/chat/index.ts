/** The Chat Completions codec: inbound (to Chat clients) and upstream (to Chat-speaking providers). */
import type { Codec, InboundCodec, UpstreamCodec } from '../codec';
import { createChatPassThroughMeter } from './chat-pass-through-meter';
import { createChatStreamDecoder } from './chat-stream-decoder';
import { createChatStreamEncoder } from './chat-stream-encoder';
import { decodeChatError } from './decode-chat-error';
import { decodeChatRequest } from './decode-chat-request';
import { decodeChatResponse } from './decode-chat-response';
import { encodeChatError } from './encode-chat-error';
import { encodeChatRequest } from './encode-chat-request';
import { encodeChatResponse } from './encode-chat-response';
import { chatInboundWire } from './chat-inbound-wire';
import { chatPassThrough, chatUpstreamWire } from './chat-upstream-wire';

const inbound: InboundCodec = {
  protocol: 'chat',
  decodeRequest: decodeChatRequest,
  encodeResponse: (response, options, context) => ({ ...encodeChatResponse(response, options, context) }),
  createStreamEncoder: createChatStreamEncoder,
  encodeError: encodeChatError,
  streamContentType: () => 'text/event-stream',
  ...chatInboundWire,
};

const upstream: UpstreamCodec = {
  protocol: 'chat',
  encodeRequest: encodeChatRequest,
  decodeResponse: decodeChatResponse,
  createStreamDecoder: createChatStreamDecoder,
  decodeError: decodeChatError,
  ...chatUpstreamWire,
};

export const chatCodec: Codec = {
  protocol: 'chat',
  aliases: ['chat-completions', 'chat_completions'],
  inbound,
  upstream,
  createPassThroughMeter: createChatPassThroughMeter,
  passThroughHeaders: () => ({}),
  ...chatPassThrough,
};

export {
  createChatPassThroughMeter,
  createChatStreamDecoder,
  createChatStreamEncoder,
  decodeChatError,
  decodeChatRequest,
  decodeChatResponse,
  encodeChatError,
  encodeChatRequest,
  encodeChatResponse,
};
