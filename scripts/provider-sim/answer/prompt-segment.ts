import { countInputTokens } from '../tokens';
import type { PromptSegment } from './conversation';

/** A prompt segment whose tokens are those of `texts` plus `imageCount` images. */
export function promptSegment(
  key: unknown,
  texts: readonly string[],
  imageCount = 0,
  cacheBreakpoint: '5m' | '1h' | null = null,
): PromptSegment {
  return { key: JSON.stringify(key) ?? '', tokens: countInputTokens(texts, imageCount), cacheBreakpoint };
}
