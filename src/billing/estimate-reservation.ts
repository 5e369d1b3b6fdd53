/**
 * The cost admission reserves before a request runs (replaced by the actual cost at settlement).
 * Input tokens are estimated from the body size (about 4 bytes per token for text, capped by the
 * context window: base64 images would otherwise count as huge prompts); output tokens are the
 * caller's cap, or the model's maximum, capped by RESERVATION_MAX_OUTPUT_TOKENS so that one long
 * `max_tokens` does not lock a small budget. The estimate only has to be in the right range: it
 * bounds how far concurrent requests can overshoot a limit (by at most one request's cost when the
 * estimate covers the actual cost).
 */
import type { CatalogModel } from '../catalog/model';
import { computeTokenCost } from './compute-cost';

const BYTES_PER_TOKEN = 4;

export interface ReservationEstimateInput {
  model: CatalogModel;
  /** Size of the request body as received. */
  bodyBytes: number;
  /** The caller's output cap (`max_tokens`, `max_output_tokens`, `maxOutputTokens`), when it gave one. */
  requestedMaxOutputTokens?: number;
  /** `config.reservationMaxOutputTokens`. */
  maxReservedOutputTokens: number;
}

export function estimateInputTokens(bodyBytes: number, contextWindow: number): number {
  return Math.min(Math.ceil(Math.max(bodyBytes, 0) / BYTES_PER_TOKEN), contextWindow);
}

export function estimateReservationCredits(input: ReservationEstimateInput): number {
  const { model } = input;
  const requested =
    input.requestedMaxOutputTokens !== undefined && input.requestedMaxOutputTokens > 0
      ? input.requestedMaxOutputTokens
      : model.maxOutputTokens;
  const outputTokens = Math.max(0, Math.min(requested, model.maxOutputTokens, input.maxReservedOutputTokens));
  return computeTokenCost(
    {
      inputTokens: estimateInputTokens(input.bodyBytes, model.contextWindow),
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      outputTokens,
      reasoningTokens: 0,
    },
    model.prices,
  );
}
