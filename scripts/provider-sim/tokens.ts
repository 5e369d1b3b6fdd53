/**
 * The simulator's fixed tokenizer, shared by every protocol so billing tests can predict usage:
 * - tokens of a text = ceil(UTF-8 byte length / 4), at least 1 for a non-empty text, 0 for '';
 * - input tokens = the sum of the tokens of every text the request carries + 85 per image;
 * - output tokens = tokens of the generated text + tokens of each tool call's JSON arguments
 *   + reasoning tokens (the tokens of the reasoning text).
 * README.md beside this file lists which texts each protocol counts.
 */
export const IMAGE_INPUT_TOKENS = 85;

export function countTextTokens(text: string): number {
  if (text.length === 0) return 0;
  return Math.max(1, Math.ceil(Buffer.byteLength(text, 'utf8') / 4));
}

export function countInputTokens(texts: readonly string[], imageCount: number): number {
  let total = imageCount * IMAGE_INPUT_TOKENS;
  for (const text of texts) total += countTextTokens(text);
  return total;
}
