/**
 * What a native Responses upstream receives of the client's headers: Codex's `session_id` (and
 * `conversation_id`), its `x-codex-*` headers and `OpenAI-Beta`. Credentials and hop-by-hop never.
 */
import { forwardedHeaders } from '../shared/forwarded-headers';

type HeaderBag = Record<string, string | string[] | undefined>;

const NAMED = new Set(['session_id', 'conversation_id', 'openai-beta']);

export function responsesPassThroughHeaders(headers: HeaderBag): Record<string, string> {
  return forwardedHeaders(headers, (name) => NAMED.has(name) || name.startsWith('x-codex-'));
}
