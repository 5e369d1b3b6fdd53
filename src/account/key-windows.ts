/**
 * Each key's 5 h / 1 d / 7 d spend windows for the console's gauges: limit, settled spend in the
 * rolling window (from the usage rows), and when the window next frees budget (its oldest charge
 * leaving it). Admission's own counters live in Redis; these figures are the settled truth.
 */
import type { Pool } from 'pg';
import { creditsToUsd } from './credits-to-usd';

const WINDOWS = [
  { name: '5h', ms: 5 * 3_600_000, column: 'rate_limit_5h' },
  { name: '1d', ms: 24 * 3_600_000, column: 'rate_limit_1d' },
  { name: '7d', ms: 7 * 24 * 3_600_000, column: 'rate_limit_7d' },
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

type Row = Record<string, string | Date | null>;

export async function keyWindows(db: Pool, accountId: number, nowMs: number): Promise<Array<{ api_key_id: number; name: string; windows: KeyWindow[] }>> {
  const sums = WINDOWS.map((w, i) => `COALESCE(sum(u.credits) FILTER (WHERE u.started_at > $${i + 2}), 0) AS spent_${w.name},
            min(u.started_at) FILTER (WHERE u.started_at > $${i + 2}) AS oldest_${w.name}`).join(',\n            ');
  const result = await db.query<Row>(
    `SELECT k.id, k.name, k.rate_limit_5h, k.rate_limit_1d, k.rate_limit_7d,
            ${sums}
       FROM api_keys k
       LEFT JOIN usage_rows u ON u.account_id = k.account_id AND u.api_key_id = k.id AND u.started_at > $4
      WHERE k.account_id = $1
      GROUP BY k.id ORDER BY k.id`,
    [accountId, ...WINDOWS.map((w) => new Date(nowMs - w.ms))]);
  return result.rows.map((row) => ({
    api_key_id: Number(row.id),
    name: String(row.name),
    windows: WINDOWS.map((w) => {
      const limit = Number(row[w.column]);
      const spent = Number(row[`spent_${w.name}`]);
      const oldest = row[`oldest_${w.name}`];
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
