import { DEFAULT_CATALOG } from '../../../src/catalog/default-catalog';
import type { CatalogModel } from '../../../src/catalog/model';
import { estimateInputTokens, estimateReservationCredits } from '../../../src/billing/estimate-reservation';

const model: CatalogModel = {
  ...DEFAULT_CATALOG[0],
  contextWindow: 1_000,
  maxOutputTokens: 8_000,
  prices: { inputPerMillion: 3_000_000, outputPerMillion: 15_000_000 },
};

describe('estimateReservationCredits', () => {
  it('prices body bytes / 4 input tokens and the requested output', () => {
    // 400 bytes → 100 input tokens × 3 credits + 200 output × 15 credits
    expect(estimateReservationCredits({ model, bodyBytes: 400, requestedMaxOutputTokens: 200, maxReservedOutputTokens: 4_096 })).toBe(
      300 + 3_000,
    );
  });

  it('caps output by the setting and by the model, and defaults to the model maximum', () => {
    expect(estimateReservationCredits({ model, bodyBytes: 0, requestedMaxOutputTokens: 100_000, maxReservedOutputTokens: 4_096 })).toBe(
      4_096 * 15,
    );
    expect(estimateReservationCredits({ model, bodyBytes: 0, maxReservedOutputTokens: 100_000 })).toBe(8_000 * 15);
    expect(estimateReservationCredits({ model, bodyBytes: 0, requestedMaxOutputTokens: 0, maxReservedOutputTokens: 10 })).toBe(10 * 15);
  });

  it('caps input by the context window (base64 images are not prompts)', () => {
    expect(estimateInputTokens(10_000_000, 1_000)).toBe(1_000);
    expect(estimateInputTokens(-5, 1_000)).toBe(0);
    expect(estimateInputTokens(5, 1_000)).toBe(2);
  });
});
