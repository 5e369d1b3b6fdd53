/**
 * What admission reserves before a call: input estimated from the body size (4 bytes a token),
 * output from the requested cap (else the model's), capped by RESERVATION_MAX_OUTPUT_TOKENS, at the
 * model's prices. Settlement replaces it by the actual cost.
 */
import { computeTokenCost } from '../billing/compute-cost';
import type { CatalogModel } from '../catalog/model';

export function estimateReservation(model: CatalogModel, bodyBytes: number, requestedMaxTokens: number | undefined, maxReservedOutput: number): { credits: number; inputTokens: number } {
  const inputTokens = Math.ceil(bodyBytes / 4);
  const outputTokens = Math.min(requestedMaxTokens ?? model.maxOutputTokens, maxReservedOutput);
  const credits = computeTokenCost({ inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 }, model.prices);
  return { credits: Math.max(credits, 1), inputTokens };
}
