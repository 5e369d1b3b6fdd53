/**
 * Protocol → codec. Adding a fifth protocol means writing one codec and adding one line here: the
 * relay asks the codec for everything that differs between protocols (docs/relay.md, "What a codec
 * provides").
 */
import type { Protocol } from '../ir/protocol';
import type { Codec } from '../protocols/codec';
import { chatCodec } from '../protocols/chat';
import { generateContentCodec } from '../protocols/generate-content';
import { messagesCodec } from '../protocols/messages';
import { responsesCodec } from '../protocols/responses';

export const CODECS: Record<Protocol, Codec> = {
  messages: messagesCodec,
  responses: responsesCodec,
  chat: chatCodec,
  'generate-content': generateContentCodec,
};
