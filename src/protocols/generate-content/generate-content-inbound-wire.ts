/**
 * What the relay needs of a Generate-Content client's request and stream besides the body: its routes
 * (the model and the streaming method are in the path), where its key is, and its frames, in SSE
 * (`alt=sse`) or in the streamed JSON array.
 */
import type { InboundCodec } from '../codec';
import { firstValue } from '../shared/request-values';
import { PLAIN_ROUTE, SSE_KEEPALIVE, SSE_ROUTE, sseDataFrame } from '../shared/wire-frames';
import { encodeGenerateContentError } from './encode-generate-content-error';

type GenerateContentInboundWire = Omit<
  InboundCodec,
  'protocol' | 'decodeRequest' | 'encodeResponse' | 'createStreamEncoder' | 'encodeError' | 'streamContentType'
>;

const GENERATE_CONTENT_PATH = /^\/v1(?:beta)?\/models\/([^/]+):(generateContent|streamGenerateContent)$/;

export const generateContentInboundWire: GenerateContentInboundWire = {
  displayName: 'Generate-Content',
  routes: [{ pattern: GENERATE_CONTENT_PATH }],
  errorPathPrefixes: ['/v1beta'],
  // Clients of the family send one of the first two; generic clients one of the last two.
  credentials: [{ header: 'x-goog-api-key' }, { query: 'key' }, { header: 'x-api-key' }, { bearer: true }],
  missingCredentialMessage: 'missing API key: send ?key=<key> or x-goog-api-key',
  maxTokensField: 'generationConfig.maxOutputTokens',
  carriesOpaqueIds: false,
  sessionSources: { headers: [], fields: [['cachedContent'], ['cached_content']] },
  readRoute(request, path, query) {
    const match = GENERATE_CONTENT_PATH.exec(path);
    request.model = decodeURIComponent(match?.[1] ?? '').replace(/^models\//, '');
    request.stream = match?.[2] === 'streamGenerateContent' || firstValue(query, 'stream') === 'true';
    return firstValue(query, 'alt') === 'sse' ? SSE_ROUTE : PLAIN_ROUTE;
  },
  // The JSON-array stream is produced by our encoder.
  canPassThrough: (request, route) => !(request.stream && !route.sse),
  keepaliveFrame: (options) => (options.sse ? SSE_KEEPALIVE : '\n'),
  passThroughErrorFrame(error, options) {
    const body = encodeGenerateContentError(error).body;
    return options.sse ? sseDataFrame(body) : `,${JSON.stringify(body)}]`;
  },
};
