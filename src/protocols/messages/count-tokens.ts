/** Messages token counting: `POST /v1/messages/count_tokens` → `{input_tokens}`. */
import type { CountTokensCodec } from '../codec';
import { readTokenCount } from '../shared/read-token-count';

export const messagesCountTokens: CountTokensCodec = {
  route: '/v1/messages/count_tokens',
  // count_tokens takes no max_tokens; the Messages schema requires one.
  inferenceBody: (body) => ({ max_tokens: 1, ...body }),
  upstreamBody: (body, upstreamModel) => ({ ...body, model: upstreamModel }),
  upstreamPath: () => '/v1/messages/count_tokens',
  readUpstreamCount: (body) => readTokenCount(body, 'input_tokens'),
  encodeCount: (tokens) => ({ input_tokens: tokens }),
};
