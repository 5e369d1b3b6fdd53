import { totalInputTokens, type Usage } from '../../ir/usage';

export interface GenerateContentUsageOut {
  promptTokenCount: number;
  candidatesTokenCount: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  totalTokenCount: number;
}

/** Normalized usage → the `usageMetadata` a Generate-Content client reads (the inverse of the decoder). */
export function encodeGenerateContentUsage(usage: Usage): GenerateContentUsageOut {
  const prompt = totalInputTokens(usage);
  const thoughts = usage.reasoningTokens;
  const candidates = Math.max(usage.outputTokens - thoughts, 0);
  const out: GenerateContentUsageOut = {
    promptTokenCount: prompt,
    candidatesTokenCount: candidates,
    totalTokenCount: prompt + candidates + thoughts,
  };
  if (thoughts > 0) out.thoughtsTokenCount = thoughts;
  if (usage.cacheReadTokens > 0) out.cachedContentTokenCount = usage.cacheReadTokens;
  return out;
}
