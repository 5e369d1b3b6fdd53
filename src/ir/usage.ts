/**
 * Normalized usage: the billing record. Never a protocol's raw field.
 * `inputTokens` excludes cache reads and writes; `outputTokens` includes reasoning.
 */
export interface Usage {
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
}

export const ZERO_USAGE: Usage = Object.freeze({
  inputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
});

/** All input tokens, cached or not: what OpenAI-style `prompt_tokens` reports. */
export function totalInputTokens(usage: Usage): number {
  return usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}
