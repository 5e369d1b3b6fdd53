/**
 * Each key's 5 h / 1 d / 7 d spend windows for the console's gauges: limit, settled spend in the
 * rolling window (from the usage rollups and the edge hour's rows), and when the window next frees budget (its oldest charge
 * leaving it). Admission's own counters live in Redis; these figures are the settled truth.
 */
import type { Queryable } from '../db/queryable';
import { keySpendAfter } from '../db/repositories/usage-rows';
import { creditsToUsd } from './credits-to-usd';

const WINDOWS = [
  { name: '5h', ms: 5 * 3_600_000, limit: 'rateLimit5h' },
  { name: '1d', ms: 24 * 3_600_000, limit: 'rateLimit1d' },
  { name: '7d', ms: 7 * 24 * 3_600_000, limit: 'rateLimit7d' },
] as const;

export interface KeyWindow {
  name: '5h' | '1d' | '7d';
  limit: number;
  spent: number;
  /** Null when the window is unlimited. */
  remaining: number | null;
  /** When the oldest charge in the window leaves it; null when nothing was spent in it. */
  resets_at: string | null;
}

export async function keyWindows(
  db: Queryable,
  accountId: number,
  nowMs: number,
): Promise<Array<{ api_key_id: number; name: string; windows: KeyWindow[] }>> {
  const keys = await keySpendAfter(
    db,
    accountId,
    WINDOWS.map((w) => new Date(nowMs - w.ms)),
  );
  return keys.map((key) => ({
    api_key_id: key.apiKeyId,
    name: key.name,
    windows: WINDOWS.map((w, index) => {
      const limit = key[w.limit];
      const spent = key.spent[index] ?? 0;
      const oldest = key.oldest[index];
      return {
        name: w.name,
        limit: creditsToUsd(limit),
        spent: creditsToUsd(spent),
        remaining: limit === 0 ? null : creditsToUsd(Math.max(0, limit - spent)),
        resets_at: oldest instanceof Date ? new Date(oldest.getTime() + w.ms).toISOString() : null,
      };
    }),
  }));
}
