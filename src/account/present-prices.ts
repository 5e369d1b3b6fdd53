/** A model's prices as the console shows them: USD per million tokens, per image, per video second. */
import type { ModelPrices } from '../catalog/model';
import { creditsToUsd } from './credits-to-usd';

function perEntry(table: Record<string, number> | undefined): Record<string, number> | undefined {
  return table === undefined
    ? undefined
    : Object.fromEntries(Object.entries(table).map(([name, credits]) => [name, creditsToUsd(credits)]));
}

export function presentPrices(prices: ModelPrices): Record<string, unknown> {
  const usd = (credits: number | undefined) => (credits === undefined ? undefined : creditsToUsd(credits));
  return {
    currency: 'USD',
    input_per_million_tokens: usd(prices.inputPerMillion),
    output_per_million_tokens: usd(prices.outputPerMillion),
    cache_read_per_million_tokens: usd(prices.cacheReadPerMillion),
    cache_write_per_million_tokens: usd(prices.cacheWritePerMillion),
    per_image: perEntry(prices.perImage),
    per_video_second: perEntry(prices.perVideoSecond),
  };
}
