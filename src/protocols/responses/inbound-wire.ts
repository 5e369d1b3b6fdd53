/**
 * What the relay needs of a Responses client's request and stream besides the body: its routes (the
 * compact endpoint included), where its key is, stored answers, compaction and its frames.
 */
import type { InboundCodec } from '../codec';
import { SSE_KEEPALIVE } from '../shared/wire-frames';
import { responsesCompaction } from './compaction';
import { encodeResponsesError } from './encode-error';

type ResponsesInboundWire = Omit<
  InboundCodec,
  'protocol' | 'decodeRequest' | 'encodeResponse' | 'createStreamEncoder' | 'encodeError' | 'streamedRefusal' | 'streamContentType'
>;

export const responsesInboundWire: ResponsesInboundWire = {
  displayName: 'Responses',
  routes: [{ path: '/v1/responses' }, { path: '/v1/responses/compact', endpoint: 'compact' }],
  errorPathPrefixes: ['/v1/responses'],
  credentials: [{ bearer: true }],
  missingCredentialMessage: 'missing API key: send Authorization: Bearer <key>',
  maxTokensField: 'max_output_tokens',
  carriesOpaqueIds: true,
  // Codex sends `session_id` (its prompt_cache_key carries the same id).
  sessionSources: { headers: ['session_id'], fields: [['prompt_cache_key'], ['conversation'], ['conversation', 'id']] },
  storedAnswerIdPrefix: 'resp_',
  compaction: responsesCompaction,
  // Stored answers carry the gateway's own ids, and a chained call needs its stored turns.
  canPassThrough: (request) => request.store === false && request.previousResponseId === undefined,
  keepaliveFrame: () => SSE_KEEPALIVE,
  passThroughErrorFrame(error) {
    const inner = (encodeResponsesError(error).body.error ?? {}) as Record<string, unknown>;
    return `event: error\ndata: ${JSON.stringify({ type: 'error', code: inner.code ?? null, message: inner.message ?? error.message, param: inner.param ?? null })}\n\n`;
  },
};
