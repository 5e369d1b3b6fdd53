/** The rolling spend windows (minute buckets; see docs/admission.md) and how long idle counters live. */
import type { AuthenticatedKey } from '../auth/authenticated-key';

export type WindowName = '5h' | '1d' | '7d';

export interface SpendWindow {
  name: WindowName;
  minutes: number;
  limit(key: AuthenticatedKey): number;
}

export const SPEND_WINDOWS: readonly SpendWindow[] = [
  { name: '5h', minutes: 300, limit: (key) => key.rateLimits.fiveHours },
  { name: '1d', minutes: 1440, limit: (key) => key.rateLimits.oneDay },
  { name: '7d', minutes: 10_080, limit: (key) => key.rateLimits.sevenDays },
];

/** Idle counters expire a day after the longest window: by then they say nothing PostgreSQL cannot rebuild. */
export const COUNTER_IDLE_TTL_MS = (10_080 + 1_440) * 60_000;
