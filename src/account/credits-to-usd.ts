/**
 * Integer credits → a USD JSON number (1 USD = 1,000,000 credits). One division of an integer by
 * 10^6 gives the double nearest the exact decimal, which JSON prints back as that decimal
 * (12345678 → 12.345678), so no figure shows float noise. Sums are always done in credits.
 */
export function creditsToUsd(credits: number): number {
  return credits / 1_000_000;
}
