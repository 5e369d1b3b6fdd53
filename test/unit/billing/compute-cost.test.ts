import { computeImageCost, computeTokenCost, computeVideoCost } from '../../../src/billing/compute-cost';

const prices = { inputPerMillion: 3_000_000, outputPerMillion: 15_000_000, cacheReadPerMillion: 300_000, cacheWritePerMillion: 3_750_000 };
const usage = (
  u: Partial<Record<'inputTokens' | 'cacheReadTokens' | 'cacheWriteTokens' | 'outputTokens' | 'reasoningTokens', number>>,
) => ({ inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, outputTokens: 0, reasoningTokens: 0, ...u });

describe('computeTokenCost', () => {
  it.each([
    ['input only', usage({ inputTokens: 1000 }), 3000],
    ['output only (reasoning is inside output)', usage({ outputTokens: 100, reasoningTokens: 60 }), 1500],
    ['cache read at its discounted rate', usage({ cacheReadTokens: 1000 }), 300],
    ['cache write at its own rate', usage({ cacheWriteTokens: 1000 }), 3750],
    ['all together', usage({ inputTokens: 10, cacheReadTokens: 20, cacheWriteTokens: 30, outputTokens: 40 }), 30 + 6 + 113 + 600],
    ['zero usage costs nothing', usage({}), 0],
    ['a fraction rounds up once per request', usage({ cacheReadTokens: 1 }), 1],
  ])('%s', (_name, u, expected) => {
    expect(computeTokenCost(u, prices)).toBe(expected);
  });

  it('rounds the sum, not each term', () => {
    // 3 cache-read tokens at 0.3 credits = 0.9 → 1, not 3 × ceil(0.3) = 3.
    expect(computeTokenCost(usage({ cacheReadTokens: 3 }), prices)).toBe(1);
  });

  it('defaults cache prices to the input price', () => {
    expect(computeTokenCost(usage({ cacheReadTokens: 10, cacheWriteTokens: 10 }), { inputPerMillion: 1_000_000 })).toBe(20);
  });
});

describe('computeImageCost and computeVideoCost', () => {
  const imagePrices = { perImage: { '1024x1024:standard': 40_000, '1024x1024:high': 170_000, '*:standard': 80_000, '*:high': 250_000 } };
  it('prices images by size and quality, with wildcards', () => {
    expect(computeImageCost(imagePrices, '1024x1024', 'high', 2)).toBe(340_000);
    expect(computeImageCost(imagePrices, '2048x2048', 'standard', 1)).toBe(80_000);
    expect(computeImageCost(imagePrices, '2048x2048', 'hd', 1)).toBe(250_000);
  });
  it('prices video per second by resolution', () => {
    expect(computeVideoCost({ perVideoSecond: { '720p': 150_000 } }, '720p', 6)).toBe(900_000);
    expect(computeVideoCost({ perVideoSecond: { '720p': 150_000 } }, '1080p', 6)).toBe(0);
  });
});
