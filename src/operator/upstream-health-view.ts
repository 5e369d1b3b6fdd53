/**
 * The operator's view of upstream health (issue 22 item 4), as every API process shares it: the
 * cooldowns running now and the failures of the last minutes, per account (Redis, see
 * src/upstream/upstream-health.ts).
 */
import type { HealthMinute, UpstreamHealth } from '../upstream/upstream-health';

/** Minutes the listing's `recent_failures` covers. */
export const RECENT_MINUTES = 5;

export interface AccountHealth {
  coolingDownUntil: number | undefined;
  recentFailures: number;
  recentReasons: Record<string, number>;
}

export async function healthByAccount(health: UpstreamHealth): Promise<(accountId: number) => AccountHealth> {
  const [cooldowns, minutes] = await Promise.all([health.sharedCooldowns(), health.history(RECENT_MINUTES)]);
  const cooling = new Map(cooldowns.map((c) => [c.accountId, c.coolingDownUntil]));
  const reasons = new Map<number, Record<string, number>>();
  for (const minute of minutes) {
    for (const [id, byReason] of Object.entries(minute.failures)) {
      const sum = reasons.get(Number(id)) ?? {};
      for (const [reason, count] of Object.entries(byReason)) sum[reason] = (sum[reason] ?? 0) + count;
      reasons.set(Number(id), sum);
    }
  }
  return (accountId) => {
    const recentReasons = reasons.get(accountId) ?? {};
    return {
      coolingDownUntil: cooling.get(accountId),
      recentFailures: Object.values(recentReasons).reduce((a, b) => a + b, 0),
      recentReasons,
    };
  };
}

/** Minute by minute, oldest first: `{at, failures: {<account id>: {<reason>: count}}}`. */
export function presentHealthMinutes(minutes: HealthMinute[]): Array<Record<string, unknown>> {
  return minutes.map((minute) => ({
    at: new Date(minute.at).toISOString(),
    failures: minute.failures,
    total: Object.values(minute.failures).reduce((sum, byReason) => sum + Object.values(byReason).reduce((a, b) => a + b, 0), 0),
  }));
}
