/** Chat usage ⇄ normalized usage (PROTOCOLS.md section 3: input includes cached, output includes reasoning). */
import { totalInputTokens, type Usage } from '../../ir/usage';
import type { ChatUpstreamUsage } from './chat-upstream-schema';
import type { ChatUsageBody } from './chat-wire-types';

function count(value: number | null | undefined): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? Math.floor(value) : 0;
}

export function convertChatUsage(raw: ChatUpstreamUsage | null | undefined): Usage {
  const prompt = count(raw?.prompt_tokens);
  const cached = Math.min(count(raw?.prompt_tokens_details?.cached_tokens ?? raw?.prompt_cache_hit_tokens), prompt);
  let completion = count(raw?.completion_tokens);
  const reasoning = count(raw?.completion_tokens_details?.reasoning_tokens);
  // xai reports completion_tokens WITHOUT reasoning (total = prompt + completion + reasoning, see
  // captures/chat/xai-tool-call.*); everyone else includes it. The total tells which one we got.
  const total = count(raw?.total_tokens);
  if (reasoning > 0 && total === prompt + completion + reasoning && total !== prompt + completion) {
    completion += reasoning;
  }
  return {
    inputTokens: prompt - cached,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    outputTokens: completion,
    reasoningTokens: Math.min(reasoning, completion),
  };
}

export function toChatUsage(usage: Usage): ChatUsageBody {
  const prompt = totalInputTokens(usage);
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cacheReadTokens },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
