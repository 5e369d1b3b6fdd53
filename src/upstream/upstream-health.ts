/**
 * Upstream health shared by every API process (issue 22 item 4). A failure costs one Redis call
 * (a script: the cooldown in a shared hash, a per-minute failure counter by reason, and a pub/sub
 * announcement); a success costs nothing. Each process keeps the cooldowns in memory for routing
 * (no Redis read per request), learns other processes' cooldowns from the announcement at once, and
 * re-reads the shared hash every few seconds in the background (an announcement missed while
 * reconnecting). The operator's views read Redis: the cooldowns now, the failures minute by minute.
 */
import type { Dependencies } from '../dependencies';
import { loadRedisScript, runRedisScript } from '../redis/redis-script';

export interface AccountCooldown {
  accountId: number;
  coolingDownUntil: number;
}

export interface HealthMinute {
  /** Start of the minute, epoch ms. */
  at: number;
  /** Failures by account id, then by reason (an HTTP status or an error class). */
  failures: Record<string, Record<string, number>>;
}

export interface UpstreamHealth {
  /** When the account's cooldown ends (epoch ms; 0 or past: not cooling down). No I/O. */
  until(accountId: number): number;
  /** A failure: cools the account down here and, in the background, everywhere. */
  failed(accountId: number, cooldownMs: number, reason: string): void;
  /** This process's view of the cooldowns running now. */
  cooldowns(): AccountCooldown[];
  /** The shared cooldowns running now, from Redis. */
  sharedCooldowns(): Promise<AccountCooldown[]>;
  /** The last `minutes` minutes of failures, oldest first, from Redis. */
  history(minutes: number): Promise<HealthMinute[]>;
  close(): void;
}

const MINUTE_MS = 60_000;
const MINUTES_KEPT_SECONDS = 24 * 3600;
const failureScript = loadRedisScript('upstream-failure-2');

type HealthDependencies = Pick<Dependencies, 'redis' | 'subscriber' | 'redisKeys' | 'clock' | 'logger'>;

/** Process-local cooldowns only (tools and tests that run without Redis pub/sub). */
export function createLocalUpstreamHealth(clock: Dependencies['clock']): UpstreamHealth {
  const cooling = new Map<number, number>();
  return {
    until: (accountId) => cooling.get(accountId) ?? 0,
    failed(accountId, cooldownMs) {
      cooling.set(accountId, Math.max(cooling.get(accountId) ?? 0, clock.now() + cooldownMs));
    },
    cooldowns: () => running(cooling, clock.now()),
    sharedCooldowns: async () => running(cooling, clock.now()),
    history: async () => [],
    close() {},
  };
}

function running(cooling: Map<number, number>, now: number): AccountCooldown[] {
  return [...cooling].filter(([, until]) => until > now).map(([accountId, coolingDownUntil]) => ({ accountId, coolingDownUntil }));
}

export function createUpstreamHealth(deps: HealthDependencies, options: { refreshMs?: number } = {}): UpstreamHealth {
  const cooling = new Map<number, number>();
  const channel = deps.redisKeys.upstreamHealthChannel();
  const learn = (accountId: number, until: number) => {
    if (Number.isSafeInteger(accountId) && until > (cooling.get(accountId) ?? 0)) cooling.set(accountId, until);
  };
  const onMessage = (from: string, message: string) => {
    if (from !== channel) return;
    const [id, until] = message.split(':').map(Number);
    learn(id!, until!);
  };
  const readShared = async (): Promise<AccountCooldown[]> => {
    const now = deps.clock.now();
    const all = await deps.redis.hgetall(deps.redisKeys.upstreamCooldowns());
    return Object.entries(all)
      .map(([id, until]) => ({ accountId: Number(id), coolingDownUntil: Number(until) }))
      .filter((c) => c.coolingDownUntil > now);
  };
  const refresh = () => {
    readShared().then(
      (shared) => {
        for (const c of shared) learn(c.accountId, c.coolingDownUntil);
      },
      (error: unknown) => deps.logger.debug({ err: error }, 'upstream health refresh failed; routing keeps its own view'),
    );
  };
  deps.subscriber.on('message', onMessage);
  deps.subscriber.subscribe(channel).catch((error: unknown) => deps.logger.warn({ err: error }, 'upstream health: subscribe failed'));
  refresh();
  const timer = setInterval(refresh, options.refreshMs ?? 5_000);
  timer.unref();

  return {
    until: (accountId) => cooling.get(accountId) ?? 0,
    failed(accountId, cooldownMs, reason) {
      const now = deps.clock.now();
      const until = now + cooldownMs;
      learn(accountId, until);
      const minute = Math.floor(now / MINUTE_MS);
      runRedisScript(
        deps.redis,
        failureScript,
        [deps.redisKeys.upstreamCooldowns(), deps.redisKeys.upstreamFailuresMinute(minute)],
        [accountId, until, reason.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 40), channel, MINUTES_KEPT_SECONDS],
      ).catch((error: unknown) =>
        deps.logger.warn({ err: error, upstreamAccount: accountId }, 'could not share an upstream cooldown; this process keeps it'),
      );
    },
    cooldowns: () => running(cooling, deps.clock.now()),
    sharedCooldowns: readShared,
    async history(minutes) {
      const last = Math.floor(deps.clock.now() / MINUTE_MS);
      const wanted = Array.from({ length: minutes }, (_, index) => last - minutes + 1 + index);
      const pipeline = deps.redis.pipeline();
      for (const minute of wanted) pipeline.hgetall(deps.redisKeys.upstreamFailuresMinute(minute));
      const replies = (await pipeline.exec()) ?? [];
      return wanted.map((minute, index) => {
        const [error, fields] = replies[index] ?? [null, {}];
        if (error) throw error;
        const failures: HealthMinute['failures'] = {};
        for (const [field, count] of Object.entries((fields ?? {}) as Record<string, string>)) {
          const [accountId, reason] = field.split(':');
          (failures[accountId!] ??= {})[reason ?? 'unknown'] = Number(count);
        }
        return { at: minute * MINUTE_MS, failures };
      });
    },
    close() {
      clearInterval(timer);
      deps.subscriber.off('message', onMessage);
      void deps.subscriber.unsubscribe(channel).catch(() => undefined);
    },
  };
}
