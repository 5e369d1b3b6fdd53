/**
 * `POST /v1/responses/compact` (the endpoint Codex's remote compaction calls): the conversation is
 * read like a Responses request and answered with one opaque, encrypted `compaction` item standing
 * for it, and the usage of the call. The payload is the simulator's own (the real one is OpenAI's).
 */
import { totalInputTokens } from '../answer/conversation';
import { encryptedReasoning } from '../answer/signatures';
import { randomId } from '../ids';
import type { SimContext } from '../http/context';
import { sendJson } from '../http/send';
import { parseResponsesRequest } from './parse-responses-request';

/** What a compaction costs in output tokens here: a fixed, small summary. */
const COMPACTION_OUTPUT_TOKENS = 64;

export function handleResponsesCompact(context: SimContext, body: unknown, modelName: string): void {
  const { state } = context;
  const parsed = parseResponsesRequest(body, state.models, modelName, { responses: state.responses, itemIds: state.responseItemIds });
  const inputTokens = totalInputTokens(parsed.conversation);
  sendJson(context, 200, {
    id: `resp_${randomId(50, 'lower36')}`,
    object: 'response.compaction',
    created_at: Math.floor(Date.now() / 1000),
    output: [
      {
        id: `cmp_${randomId(50, 'lower36')}`,
        type: 'compaction',
        encrypted_content: encryptedReasoning(`compacted ${parsed.conversation.segments.length} items`),
      },
    ],
    usage: {
      input_tokens: inputTokens,
      // As every answer of the real API reports it (the document requires it in ResponseUsage).
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: COMPACTION_OUTPUT_TOKENS,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: inputTokens + COMPACTION_OUTPUT_TOKENS,
    },
  });
}
