/** How a Generate-Content upstream is called: its credential, image bytes inline, and the pass-through path (the model is in it). */
import type { Codec, UpstreamCodec } from '../codec';

export const generateContentUpstreamWire: Pick<UpstreamCodec, 'nativeJsonSchema' | 'needsInlineImages' | 'authenticate'> = {
  nativeJsonSchema: true,
  needsInlineImages: true,
  authenticate(headers, credential) {
    headers['x-goog-api-key'] = credential;
  },
};

export const generateContentPassThrough: Pick<Codec, 'passThroughPath' | 'fixPassThroughBody'> = {
  passThroughPath: (upstreamModel, call) =>
    `/v1beta/models/${encodeURIComponent(upstreamModel)}:${call.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
  // The body names no model (the path does): it goes as the client sent it.
  fixPassThroughBody: () => undefined,
};
