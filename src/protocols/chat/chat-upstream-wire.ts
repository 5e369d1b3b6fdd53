/** How a Chat Completions upstream is called: its credential, and the pass-through path and body fix-ups. */
import type { Codec, UpstreamCodec } from '../codec';
import { setBearerCredential } from '../shared/bearer-credential';
import { renameChatMaxTokens, stripChatExtensions } from './chat-pass-through-body';
import { createChatUsageFilter } from './chat-usage-filter';

export const chatUpstreamWire: Pick<UpstreamCodec, 'nativeJsonSchema' | 'needsInlineImages' | 'authenticate'> = {
  nativeJsonSchema: true,
  needsInlineImages: false,
  authenticate: setBearerCredential,
};

export const chatPassThrough: Pick<Codec, 'passThroughPath' | 'fixPassThroughBody' | 'passThroughStreamFilter'> = {
  passThroughPath: () => '/v1/chat/completions',
  fixPassThroughBody(body, upstreamModel, family, stream) {
    body.model = upstreamModel;
    renameChatMaxTokens(body, upstreamModel);
    stripChatExtensions(body, family);
    if (stream) {
      // Usage is needed to bill; the usage chunk is filtered out again if the client did not ask for it.
      body.stream_options = {
        ...(typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {}),
        include_usage: true,
      };
    }
  },
  passThroughStreamFilter: (request) => (request.includeUsage ? undefined : createChatUsageFilter()),
};
