/** Responses token counting: `POST /v1/responses/input_tokens` → `{object: 'response.input_tokens', input_tokens}`. */
import type { CountTokensCodec } from '../codec';
import { readTokenCount } from '../shared/read-token-count';

export const responsesCountTokens: CountTokensCodec = {
  route: '/v1/responses/input_tokens',
  inferenceBody: (body) => body,
  upstreamBody: (body, upstreamModel) => ({ ...body, model: upstreamModel }),
  upstreamPath: () => '/v1/responses/input_tokens',
  readUpstreamCount: (body) => readTokenCount(body, 'input_tokens'),
  encodeCount: (tokens) => ({ object: 'response.input_tokens', input_tokens: tokens }),
};
