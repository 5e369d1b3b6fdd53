/**
 * Cost in integer credits (1 USD = 1,000,000 credits), a pure function of normalized usage and the
 * catalog's prices. Rounding rule: the exact sum of tokens × price-per-million is computed in
 * integers and divided by one million once, rounding UP to the next whole credit (a request never
 * costs a fraction less than its usage; a zero-usage request costs 0).
 */
import type { ModelPrices } from '../catalog/model';
import type { Usage } from '../ir/usage';

export function computeTokenCost(usage: Usage, prices: ModelPrices): number {
  const input = prices.inputPerMillion ?? 0;
  const output = prices.outputPerMillion ?? 0;
  // Cache reads default to the input price; cache writes are billed at the full input rate unless priced.
  const cacheRead = prices.cacheReadPerMillion ?? input;
  const cacheWrite = prices.cacheWritePerMillion ?? input;
  const micro =
    BigInt(usage.inputTokens) * BigInt(input) +
    BigInt(usage.cacheReadTokens) * BigInt(cacheRead) +
    BigInt(usage.cacheWriteTokens) * BigInt(cacheWrite) +
    BigInt(usage.outputTokens) * BigInt(output);
  return Number((micro + 999_999n) / 1_000_000n);
}

/** Per image by `size` and quality: exact `size:quality`, then `*:quality`, then `size:*`, then `*:*`. */
export function computeImageCost(prices: ModelPrices, size: string, quality: string, count: number): number {
  const table = prices.perImage ?? {};
  const normalizedQuality = quality === 'hd' || quality === 'high' ? 'high' : 'standard';
  const each = table[`${size}:${normalizedQuality}`] ?? table[`*:${normalizedQuality}`] ?? table[`${size}:*`] ?? table['*:*'] ?? 0;
  return each * count;
}

/** Per second by resolution. */
export function computeVideoCost(prices: ModelPrices, resolution: string, seconds: number): number {
  const perSecond = prices.perVideoSecond?.[resolution] ?? 0;
  return perSecond * Math.ceil(seconds);
}
