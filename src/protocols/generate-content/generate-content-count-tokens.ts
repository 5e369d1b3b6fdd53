/** Generate-Content token counting: `POST /v1beta/models/{model}:countTokens` → `{totalTokens}`. */
import { GatewayError } from '../../errors/gateway-error';
import type { CountTokensCodec } from '../codec';
import { readTokenCount } from '../shared/read-token-count';

export const generateContentCountTokens: CountTokensCodec = {
  route: /^\/v1(?:beta)?\/models\/([^/]+):countTokens$/,
  inferenceBody(body) {
    const inner = body.generateContentRequest;
    if (inner === undefined) return body;
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner)) {
      throw new GatewayError('invalid_request', 'generateContentRequest: expected an object', { param: 'generateContentRequest' });
    }
    const { model: _model, ...rest } = inner as Record<string, unknown>;
    return rest;
  },
  upstreamBody: (body) => body,
  upstreamPath: (upstreamModel) => `/v1beta/models/${encodeURIComponent(upstreamModel)}:countTokens`,
  readUpstreamCount: (body) => readTokenCount(body, 'totalTokens'),
  encodeCount: (tokens) => ({ totalTokens: tokens }),
};
