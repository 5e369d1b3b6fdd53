/**
 * What the relay needs of a Messages client's request and stream besides the body: its routes, where
 * its key is, the version header it must send, the beta header forwarded upstream, and its frames.
 */
import { GatewayError } from '../../errors/gateway-error';
import type { InboundCodec } from '../codec';
import { firstValue } from '../shared/request-values';
import { SSE_KEEPALIVE } from '../shared/wire-frames';
import { encodeMessagesError } from './encode-error';

type MessagesInboundWire = Omit<
  InboundCodec,
  'protocol' | 'decodeRequest' | 'encodeResponse' | 'createStreamEncoder' | 'encodeError' | 'streamContentType'
>;

const VERSION_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export const messagesInboundWire: MessagesInboundWire = {
  displayName: 'Messages',
  routes: [{ path: '/v1/messages' }],
  errorPathPrefixes: ['/v1/messages'],
  credentials: [{ header: 'x-api-key' }, { bearer: true }],
  missingCredentialMessage: 'missing API key: send x-api-key or Authorization: Bearer <key>',
  maxTokensField: 'max_tokens',
  carriesOpaqueIds: false,
  // Claude Code sends its session in a header and in metadata.user_id.
  sessionSources: { headers: ['x-claude-code-session-id'], fields: [['metadata', 'user_id']] },
  /** Any `YYYY-MM-DD` is accepted: the answer shape is always that of 2023-06-01. */
  checkClientHeaders(headers) {
    const version = firstValue(headers, 'anthropic-version') ?? firstValue(headers, 'messages-version');
    if (!version)
      throw new GatewayError('invalid_request', 'missing messages-version header (anthropic-version is accepted too); use 2023-06-01', {
        param: 'messages-version',
      });
    if (!VERSION_PATTERN.test(version))
      throw new GatewayError('invalid_request', `messages-version ${version} is not a date such as 2023-06-01`, {
        param: 'messages-version',
      });
  },
  readClientHeaders(headers) {
    const beta = firstValue(headers, 'anthropic-beta') ?? firstValue(headers, 'messages-beta');
    return beta === undefined ? undefined : { 'anthropic-beta': beta };
  },
  canPassThrough: () => true,
  keepaliveFrame: () => SSE_KEEPALIVE,
  passThroughErrorFrame: (error) => `event: error\ndata: ${JSON.stringify(encodeMessagesError(error).body)}\n\n`,
};
