/**
 * Admission: key status and expiry, then IP rules, in TypeScript (no Redis needed to refuse), then
 * ONE atomic Redis script for the concurrency lease, the rolling spend windows, the lifetime key
 * quota and the wallet, which reserves the request's estimated cost; one more script at the end
 * replaces the reservation by the actual cost (settle) or drops it (release). Counters missing from
 * Redis (first use, or Redis lost them) are loaded from PostgreSQL and the script runs again.
 */
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { inactiveKeyError, inactiveReason } from '../auth/assert-key-active';
import { ipRefusalMessage } from '../auth/ip-refusal';
import { createIpRuleEvaluator } from '../auth/ip-rules';
import { findKeySpendState } from '../db/repositories/api-keys';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import type { ErrorSurface } from '../http/request-context';
import type { Admission, AdmissionRequest, AdmissionTicket, SettlementRecord, SettlementRider } from './admission';
import { parseScriptReply, type AdmissionFigures, type ScriptReply } from './admission-figures';
import { admissionRedisKeys } from './admission-redis-keys';
import { buildAccountingHeaders, buildMessagesRateLimitHeaders, formatUsd, rateLimitHeaders } from './accounting-headers';
import { loadKeyCounters, loadKeyCountersScript, loadWalletCache } from './rebuild-counters';
import { markKeySecret } from './mark-key-secret';
import { REQUEST_REDIS_DEADLINE_MS, withinDeadline } from '../redis/connection';
import { sameHashTag, usageShard } from '../redis/keys';
import { loadRedisScript, runRedisScript, type RedisScript } from '../redis/redis-script';
import { createSettlementBatch, type SettlementBatch } from './settlement-batch';
import { COUNTER_IDLE_TTL_MS, SPEND_WINDOWS, type WindowName } from './spend-windows';

export interface GatewayAdmissionRequest extends AdmissionRequest {
  /** The caller's surface: `messages` adds the `x-ratelimit-*` family to every header set. */
  surface?: ErrorSurface;
}

export interface GatewayAdmissionTicket extends AdmissionTicket {
  /** The figures as of admission (for callers that render their own headers). */
  figures(): AdmissionFigures;
}

export interface GatewayAdmission extends Admission {
  admit(request: GatewayAdmissionRequest): Promise<GatewayAdmissionTicket>;
  peekHeaders(key: AuthenticatedKey, surface?: ErrorSurface): Promise<Record<string, string>>;
  /** Undefined when the key can no longer be used (its secret was rotated, or it was revoked or deleted). */
  peekFigures(key: AuthenticatedKey): Promise<AdmissionFigures | undefined>;
}

const WINDOW_LABELS: Record<WindowName, string> = { '5h': 'rolling 5-hour', '1d': 'rolling 24-hour', '7d': 'rolling 7-day' };
// One load of missing counters, one repair of a wrongly refused secret, then the real answer.
const MAX_LOAD_ATTEMPTS = 4;

function limitsOf(key: AuthenticatedKey): number[] {
  return SPEND_WINDOWS.map((window) => window.limit(key));
}

function credits(value: number, what: string): number {
  if (!Number.isFinite(value) || value < 0) throw new Error(`${what} must be a non-negative number of credits`);
  return Math.ceil(value);
}

/** What admission runs with: built once per process by createAdmission. */
interface AdmissionScope {
  deps: Dependencies;
  admitScript: RedisScript;
  /** The settlements of one event-loop turn share one script call per shard. */
  settlements: SettlementBatch;
  loadScript: RedisScript;
  evaluateIp: ReturnType<typeof createIpRuleEvaluator>;
}

function headersFor(
  key: AuthenticatedKey,
  figures: AdmissionFigures,
  surface: ErrorSurface | undefined,
  options: { includeReset?: boolean } = {},
): Record<string, string> {
  const headers = buildAccountingHeaders(key, figures, options);
  return surface === 'messages' ? { ...headers, ...buildMessagesRateLimitHeaders(key, figures) } : headers;
}

async function redisCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    // Without Redis nothing can be admitted safely: refuse (free, retryable by the client) rather than guess.
    throw new GatewayError('unavailable', 'admission is temporarily unavailable', { cause: error, retryAfterSeconds: 1 });
  }
}

async function loadMissing(scope: AdmissionScope, key: AuthenticatedKey, which: string): Promise<void> {
  if (which === 'wallet' || which === 'both') await loadWalletCache(scope.deps, key.accountId, 'if-missing');
  if (which === 'key' || which === 'both') await loadKeyCounters(scope.deps, scope.loadScript, key.accountId, key.keyId, 'if-missing');
}

/**
 * Redis says this secret may no longer use the key. Normally true (rotated, revoked, deleted); but
 * if a key change could not be recorded in Redis, PostgreSQL knows better: repair and retry.
 */
async function stillCurrent(scope: AdmissionScope, key: AuthenticatedKey): Promise<boolean> {
  const row = await findKeySpendState(scope.deps.db, key.accountId, key.keyId);
  if (!row || row.status !== 'active' || row.secretHmac !== key.secretHmac) return false;
  await redisCall(() => markKeySecret(scope.deps, key.accountId, key.keyId, key.secretHmac));
  return true;
}

async function runAdmit(
  scope: AdmissionScope,
  key: AuthenticatedKey,
  args: { mode: 'admit' | 'peek'; requestId: string; reserve: number; takesLease: boolean },
): Promise<ScriptReply> {
  const keys = admissionRedisKeys(scope.deps.redisKeys, key.accountId, key.keyId);
  let repaired = false;
  for (let attempt = 0; attempt < MAX_LOAD_ATTEMPTS; attempt++) {
    // Bounded: a request refused during a Redis failover gets its 503 within a second.
    const raw = await redisCall(() =>
      withinDeadline(
        runRedisScript(scope.deps.redis, scope.admitScript, keys, [
          args.mode,
          scope.deps.clock.now(),
          key.keyId,
          args.requestId,
          args.reserve,
          args.takesLease ? 1 : 0,
          scope.deps.config.leaseTtlMs,
          key.concurrencyCap,
          key.secretHmac,
          key.quotaCredits,
          ...limitsOf(key),
          COUNTER_IDLE_TTL_MS,
        ]),
        REQUEST_REDIS_DEADLINE_MS,
      ),
    );
    const reply = parseScriptReply(raw);
    if (reply.status === 'dead' && !repaired) {
      repaired = true;
      if (await stillCurrent(scope, key)) continue;
    }
    if (reply.status !== 'load') return reply;
    await redisCall(() => loadMissing(scope, key, reply.detail));
  }
  throw new GatewayError('unavailable', 'admission counters could not be loaded', { retryAfterSeconds: 1 });
}

async function peekFigures(scope: AdmissionScope, key: AuthenticatedKey): Promise<AdmissionFigures | undefined> {
  const reply = await runAdmit(scope, key, { mode: 'peek', requestId: '', reserve: 0, takesLease: false });
  return reply.status === 'ok' ? reply.figures : undefined;
}

/** Headers for an early refusal; a refusal must not turn into a 503 because Redis is away. */
async function refusalHeaders(
  scope: AdmissionScope,
  key: AuthenticatedKey,
  surface: ErrorSurface | undefined,
): Promise<Record<string, string> | undefined> {
  try {
    const figures = await peekFigures(scope, key);
    return figures ? headersFor(key, figures, surface) : undefined;
  } catch {
    return undefined;
  }
}

function refusal(scope: AdmissionScope, key: AuthenticatedKey, reply: ScriptReply, surface: ErrorSurface | undefined): GatewayError {
  const figures = reply.figures;
  if (reply.status === 'dead' || !figures) return new GatewayError('authentication', 'invalid API key');
  const now = scope.deps.clock.now();
  switch (reply.status) {
    case 'concurrency':
      return new GatewayError(
        'concurrency_limit',
        `too many concurrent requests: this account allows ${key.concurrencyCap} at once; retry after a short random delay`,
        { retryAfterSeconds: 1, headers: headersFor(key, figures, surface, { includeReset: false }) },
      );
    case 'rate_limit': {
      const name = reply.detail as WindowName;
      const window = SPEND_WINDOWS.find((candidate) => candidate.name === name);
      if (!window) throw new Error(`admission named an unknown window ${reply.detail}`);
      const limit = window.limit(key);
      const used = figures.windows[name].used;
      const inFlight = figures.reservedKeyCredits;
      const resetAt = new Date(reply.detailResetMs);
      const headers = {
        ...headersFor(key, figures, surface),
        // The refusal reports the window that refused, whatever the tightest standing says.
        ...rateLimitHeaders(
          {
            name,
            limitCredits: limit,
            usedCredits: used,
            remainingCredits: Math.max(limit - used - inFlight, 0),
            resetAtMs: reply.detailResetMs,
          },
          { includeReset: true },
        ),
      };
      return new GatewayError(
        'rate_limit',
        `rate_limit_${name} exhausted: used $${formatUsd(used)}${inFlight > 0 ? ` (plus $${formatUsd(inFlight)} in flight)` : ''} of $${formatUsd(limit)} in the ${WINDOW_LABELS[name]} window; resets at ${resetAt.toISOString()}`,
        { retryAfterSeconds: Math.max(1, Math.ceil((reply.detailResetMs - now) / 1000)), headers },
      );
    }
    case 'quota':
      return new GatewayError(
        'insufficient_balance',
        `API key quota exhausted: spent $${formatUsd(figures.spentCredits)} of $${formatUsd(key.quotaCredits)}`,
        { headers: headersFor(key, figures, surface) },
      );
    case 'wallet':
      return new GatewayError(
        'insufficient_balance',
        `insufficient balance: ${key.accountKind === 'organization' ? 'the organization wallet' : 'the wallet'} holds $${formatUsd(Math.max(figures.walletCredits, 0))}; top up to continue`,
        { headers: headersFor(key, figures, surface) },
      );
    default:
      return new GatewayError('internal', `unexpected admission status ${reply.status}`);
  }
}

function createTicket(
  scope: AdmissionScope,
  key: AuthenticatedKey,
  request: GatewayAdmissionRequest,
  admitted: AdmissionFigures,
): GatewayAdmissionTicket {
  const keys = admissionRedisKeys(scope.deps.redisKeys, key.accountId, key.keyId);
  let ending: Promise<Record<string, string>> | undefined;

  async function end(
    mode: 'settle' | 'release',
    actual: number,
    record?: SettlementRecord,
    offered?: SettlementRider,
  ): Promise<Record<string, string>> {
    const usageStream = scope.deps.redisKeys.accountUsageStream(key.accountId);
    // A rider of another slot would fail the whole call on a cluster (CROSSSLOT): its owner appends it.
    const rider = offered && sameHashTag(offered.stream, usageStream) ? offered : undefined;
    if (offered && !rider) offered.notAppended();
    // Shared with the other settlements of this turn on the account's shard: one script call.
    const raw = await redisCall(() =>
      scope.settlements.settle(
        usageShard(key.accountId),
        [...keys, usageStream, rider?.stream ?? usageStream],
        [
          mode,
          scope.deps.clock.now(),
          key.keyId,
          request.requestId,
          actual,
          COUNTER_IDLE_TTL_MS,
          ...limitsOf(key),
          record?.payload ?? '',
          rider?.payload ?? '',
        ],
      ),
    );
    // The reply ends with the usage event's entry id, then the rider's.
    record?.appended(String(raw[raw.length - 2]));
    rider?.appended(String(raw[raw.length - 1]));
    const reply = parseScriptReply(raw);
    // Counters vanished mid-request (Redis flushed): the peek reloads them from PostgreSQL.
    const figures = reply.status === 'ok' ? reply.figures : await peekFigures(scope, key);
    return figures ? headersFor(key, figures, request.surface) : {};
  }

  return {
    requestId: request.requestId,
    headers: () => headersFor(key, admitted, request.surface),
    figures: () => admitted,
    async heartbeat() {
      if (ending) return;
      const expiry = scope.deps.clock.now() + scope.deps.config.leaseTtlMs;
      // XX: never resurrect a lease that already expired and was swept (its slot may be taken).
      await redisCall(() =>
        scope.deps.redis.multi().zadd(keys[1], 'XX', expiry, request.requestId).zadd(keys[2], 'XX', expiry, request.requestId).exec(),
      );
    },
    settle(actualCredits, record, rider) {
      // Exactly one ending counts; a second call returns the first one's headers.
      if (ending) {
        rider?.notAppended();
        return ending;
      }
      ending = end('settle', credits(actualCredits, 'actual cost'), record, rider);
      return ending;
    },
    async release() {
      ending ??= end('release', 0);
      await ending;
    },
  };
}

/** Key status and expiry, IP rules, then the admission script; a refusal carries its accounting headers. */
async function admit(scope: AdmissionScope, request: GatewayAdmissionRequest): Promise<GatewayAdmissionTicket> {
  const { key, surface } = request;
  const now = scope.deps.clock.now();
  const reason = inactiveReason(key, now);
  if (reason !== undefined) throw inactiveKeyError(key, reason);
  const verdict = scope.evaluateIp(key.ipWhitelist, key.ipBlacklist, request.clientIp);
  if (verdict !== 'allowed') {
    throw new GatewayError('permission', ipRefusalMessage(verdict, request.clientIp), {
      headers: await refusalHeaders(scope, key, surface),
    });
  }
  const reply = await runAdmit(scope, key, {
    mode: 'admit',
    requestId: request.requestId,
    reserve: credits(request.reserveCredits, 'reservation'),
    takesLease: request.takesLease,
  });
  if (reply.status === 'duplicate') throw new GatewayError('internal', `request ${request.requestId} was admitted twice`);
  if (reply.status !== 'ok' || !reply.figures) throw refusal(scope, key, reply, surface);
  return createTicket(scope, key, request, reply.figures);
}

export function createAdmission(deps: Dependencies): GatewayAdmission {
  const scope: AdmissionScope = {
    deps,
    admitScript: loadRedisScript('admit-6'),
    settlements: createSettlementBatch(deps.redis),
    loadScript: loadKeyCountersScript(),
    evaluateIp: createIpRuleEvaluator(),
  };
  return {
    admit: (request) => admit(scope, request),
    async peekHeaders(key, surface) {
      const figures = await peekFigures(scope, key);
      return figures ? headersFor(key, figures, surface) : {};
    },
    peekFigures: (key) => peekFigures(scope, key),
  };
}
