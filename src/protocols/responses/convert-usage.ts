/**
 * Responses usage ⇄ normalized usage. Responses `input_tokens` includes `cached_tokens` and
 * `output_tokens` includes `reasoning_tokens`; the IR keeps uncached input apart.
 */
import { totalInputTokens, type Usage } from '../../ir/usage';

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

function field(value: unknown, key: string): unknown {
  return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
}

/** Upstream `usage` object (lenient: missing or null fields count as 0). */
export function convertResponsesUsage(raw: unknown): Usage {
  const input = count(field(raw, 'input_tokens'));
  const cached = Math.min(count(field(field(raw, 'input_tokens_details'), 'cached_tokens')), input);
  return {
    inputTokens: input - cached,
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    outputTokens: count(field(raw, 'output_tokens')),
    reasoningTokens: count(field(field(raw, 'output_tokens_details'), 'reasoning_tokens')),
  };
}

/** The client-facing `usage`, with the service's own `reasoning_tokens` beside the native details. */
export function toResponsesUsage(usage: Usage): Record<string, unknown> {
  const input = totalInputTokens(usage);
  return {
    input_tokens: input,
    // Both details are required by OpenAI's schema; cache writes are known from Messages upstreams.
    input_tokens_details: { cached_tokens: usage.cacheReadTokens, cache_write_tokens: usage.cacheWriteTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: input + usage.outputTokens,
    reasoning_tokens: usage.reasoningTokens,
  };
}
