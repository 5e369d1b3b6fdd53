/** What the relay needs of a Chat Completions client's request and stream besides the body: its route, where its key is, its frames. */
import type { InboundCodec } from '../codec';
import { SSE_KEEPALIVE, sseDataFrame } from '../shared/wire-frames';
import { encodeChatError } from './encode-chat-error';

type ChatInboundWire = Omit<
  InboundCodec,
  'protocol' | 'decodeRequest' | 'encodeResponse' | 'createStreamEncoder' | 'encodeError' | 'streamContentType'
>;

export const chatInboundWire: ChatInboundWire = {
  displayName: 'Chat Completions',
  routes: [{ path: '/v1/chat/completions' }],
  errorPathPrefixes: ['/v1/chat/completions'],
  credentials: [{ header: 'x-api-key' }, { bearer: true }],
  missingCredentialMessage: 'missing API key: send x-api-key or Authorization: Bearer <key>',
  maxTokensField: 'max_tokens',
  carriesOpaqueIds: true,
  sessionSources: { headers: ['session_id'], fields: [['prompt_cache_key'], ['user']] },
  canPassThrough: () => true,
  keepaliveFrame: () => SSE_KEEPALIVE,
  passThroughErrorFrame: (error) => sseDataFrame(encodeChatError(error).body),
};
