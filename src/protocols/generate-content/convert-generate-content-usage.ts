import type { Usage } from '../../ir/usage';
import type { GenerateContentUsageMetadata } from './generate-content-response-schema';

/**
 * `usageMetadata` → normalized usage. `promptTokenCount` already includes the cached tokens and
 * `candidatesTokenCount` excludes the thoughts, so cached tokens are subtracted once and thoughts
 * added once (PROTOCOLS.md §3, pitfall 15).
 */
export function convertGenerateContentUsage(metadata: GenerateContentUsageMetadata | null | undefined): Usage {
  const prompt = metadata?.promptTokenCount ?? 0;
  const cached = metadata?.cachedContentTokenCount ?? 0;
  const toolUsePrompt = metadata?.toolUsePromptTokenCount ?? 0;
  const candidates = metadata?.candidatesTokenCount ?? 0;
  const thoughts = metadata?.thoughtsTokenCount ?? 0;
  return {
    inputTokens: Math.max(prompt - cached, 0) + toolUsePrompt,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    outputTokens: candidates + thoughts,
    reasoningTokens: thoughts,
  };
}

/** Whether a chunk's `usageMetadata` carries any count (stream chunks may hold only `trafficType`). */
export function hasGenerateContentUsage(metadata: GenerateContentUsageMetadata | null | undefined): boolean {
  if (!metadata) return false;
  return (
    metadata.promptTokenCount != null ||
    metadata.candidatesTokenCount != null ||
    metadata.thoughtsTokenCount != null ||
    metadata.totalTokenCount != null
  );
}
