/**
 * The reconciler: a repeatable job on the `maintenance` queue (and `reconcile(deps)` for operators
 * and tests) that compares every account's Redis counters (wallet cache, each key's lifetime spend
 * and spend buckets) with PostgreSQL plus the charges still in the usage stream, reports the drift
 * through `metrics.reconcileDrift`, and repairs Redis from PostgreSQL.
 *
 * Measuring Redis, the usage stream and PostgreSQL cannot be one atomic read, so a charge in flight can
 * look like drift for a moment: an account is repaired only when two measurements `confirmDelayMs`
 * apart find the same drift, or when its counters are missing (a flush) while it has recent usage
 * or unsettled charges. A repair rebuilds the account from PostgreSQL (`rebuildAccountCounters`)
 * and then re-applies the charges that were unsettled both before and after the rebuild.
 */
import { randomUUID } from 'node:crypto';
import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type Redis from 'ioredis';
import type { PoolClient } from 'pg';
import {
  compareCounters,
  expectedCounters,
  sameDrift,
  LONGEST_WINDOW_MINUTES,
  type CounterDrift,
  type CounterSnapshot,
  type KeyCounters,
  type UnsettledCharge,
} from '../src/billing/counter-drift';
import type { Dependencies } from '../src/dependencies';
import type { Logger } from '../src/http/logger';
import { admissionRedisKeys } from '../src/limits/admission-redis-keys';
import { rebuildAccountCounters } from '../src/limits/rebuild-counters';
import { loadRedisScript, runRedisScript, type RedisScript } from '../src/redis/redis-script';
import { COUNTER_IDLE_TTL_MS } from '../src/limits/spend-windows';
import { createWalletCache } from '../src/limits/wallet-cache';
import { createRedis } from '../src/redis/connection';
import {
  inLedgerSnapshot,
  listAccountIdsAfter,
  listAccountsKeyIds,
  readAccountBalances,
  readKeysSpent,
  readRecentKeySpend,
  writtenRequestIds,
} from '../src/db/repositories/ledger';
import { readUnsettledEvents } from './billing-unsettled-events';

export const MAINTENANCE_QUEUE_NAME = 'maintenance';
export const RECONCILE_JOB_NAME = 'reconcile';
const RECONCILE_SCHEDULER_ID = 'billing-reconcile';
/** How often a maintenance worker checks that the reconcile scheduler still exists in Redis. */
const SCHEDULER_CHECK_MS = 10_000;
/** Reconcile runs after Redis lost its data, besides the schedule. */
const RECOVERY_RUN_DELAYS_MS = [0, 15_000, 30_000, 45_000];

export type ReconcilerDependencies = Pick<Dependencies, 'config' | 'db' | 'redis' | 'redisKeys' | 'logger' | 'metrics' | 'clock'>;

export interface ReconcileOptions {
  /** Pause between the two measurements of a drifting account (default 1 s). */
  confirmDelayMs?: number;
  /** Accounts measured together (default 100). */
  accountsPerBatch?: number;
  /** Only these accounts (operators, tests); default every account. */
  accountIds?: number[];
}

export interface ReconcileReport {
  accountsChecked: number;
  /** Accounts whose Redis counters were rebuilt. */
  accountsRepaired: number;
  /** Accounts repaired because counters were missing (e.g. Redis flushed). */
  missingCounters: number;
  /** Absolute drift seen at the first measurement, credits. */
  drift: { wallet: number; keySpent: number; keyWindow: number };
  /** Credits in usage events not yet written to PostgreSQL. */
  unsettledCredits: number;
  /** Usage events in the dead-letter stream (never written). */
  failedJobs: number;
}

interface Measurement {
  accountId: number;
  drift: CounterDrift;
  unsettled: UnsettledCharge[];
  recentUsage: boolean;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function readRedisCounters(deps: ReconcilerDependencies, accountId: number, keyIds: readonly number[]): Promise<CounterSnapshot> {
  // One MULTI: the hash tag puts every counter of the account on one node, read at one instant.
  const transaction = deps.redis.multi().hget(deps.redisKeys.account(accountId), 'wallet');
  for (const keyId of keyIds) {
    transaction.hget(deps.redisKeys.apiKey(accountId, keyId), 'spent');
    transaction.hgetall(deps.redisKeys.apiKeySpendWindow(accountId, keyId));
  }
  const replies = (await transaction.exec()) ?? [];
  const value = (index: number): unknown => {
    const [error, result] = replies[index] ?? [new Error('missing reply'), null];
    if (error) throw error;
    return result;
  };
  const toNumberOrNull = (raw: unknown) => (raw === null || raw === undefined ? null : Number(raw));
  const keys = new Map<number, KeyCounters>();
  keyIds.forEach((keyId, index) => {
    const rawBuckets = (value(2 + index * 2) ?? {}) as Record<string, string>;
    const buckets = new Map<number, number>();
    for (const [minute, credits] of Object.entries(rawBuckets)) buckets.set(Number(minute), Number(credits));
    keys.set(keyId, { spent: toNumberOrNull(value(1 + index * 2)), buckets });
  });
  return { wallet: toNumberOrNull(value(0)), keys };
}

interface LedgerFigures {
  balance: number;
  keys: Map<number, { spent: number; buckets: Map<number, number> }>;
  recentUsage: boolean;
}

/** PostgreSQL's side, read in one snapshot together with which unsettled request ids it already has. */
async function readLedgerFigures(
  client: PoolClient,
  accountIds: readonly number[],
  candidates: readonly string[],
  nowMs: number,
): Promise<{ figures: Map<number, LedgerFigures>; written: Set<string> }> {
  const figures = new Map<number, LedgerFigures>();
  for (const account of await readAccountBalances(client, accountIds))
    figures.set(account.accountId, { balance: account.balanceCredits, keys: new Map(), recentUsage: false });
  for (const key of await readKeysSpent(client, accountIds))
    figures.get(key.accountId)?.keys.set(key.keyId, { spent: key.spentCredits, buckets: new Map() });
  for (const bucket of await readRecentKeySpend(client, accountIds, nowMs, LONGEST_WINDOW_MINUTES)) {
    const account = figures.get(bucket.accountId);
    if (!account) continue;
    account.recentUsage = true;
    account.keys.get(bucket.keyId)?.buckets.set(bucket.minute, bucket.credits);
  }
  return { figures, written: await settledAmong(client, candidates) };
}

/** Which candidates are in PostgreSQL: their request ids' claims, committed with their usage rows. */
async function settledAmong(client: PoolClient, candidates: readonly string[]): Promise<Set<string>> {
  if (candidates.length === 0) return new Set();
  return new Set(await writtenRequestIds(client, candidates));
}

async function withSnapshot<T>(deps: ReconcilerDependencies, read: (client: PoolClient) => Promise<T>): Promise<T> {
  return inLedgerSnapshot(deps.db, read);
}

/** Charges of these accounts still in the usage stream and not yet in PostgreSQL. */
async function unsettledFor(deps: ReconcilerDependencies, accountIds: ReadonlySet<number>): Promise<UnsettledCharge[]> {
  const { charges } = await readUnsettledEvents(deps);
  const mine = charges.filter((charge) => accountIds.has(charge.accountId));
  const written = await withSnapshot(deps, (client) =>
    settledAmong(
      client,
      mine.map((charge) => charge.requestId),
    ),
  );
  return mine.filter((charge) => !written.has(charge.requestId));
}

async function measure(deps: ReconcilerDependencies, accountIds: readonly number[]): Promise<Measurement[]> {
  const keysOf = new Map<number, number[]>(accountIds.map((id) => [id, []]));
  for (const key of await listAccountsKeyIds(deps.db, accountIds)) keysOf.get(key.accountId)?.push(key.keyId);
  // Order matters: Redis first, then the usage stream, then PostgreSQL. A charge reaches the counters
  // and the stream in one script, and its entry leaves the stream only after its row is committed, so
  // a charge already in the Redis read is found in the stream or in PostgreSQL (unless the recorder
  // appends it later, when the script could not run). A charge settled after the Redis read can
  // only show up as drift that the second measurement drops.
  const snapshots = await Promise.all(accountIds.map((id) => readRedisCounters(deps, id, keysOf.get(id) ?? [])));
  const wanted = new Set(accountIds);
  const { charges } = await readUnsettledEvents(deps);
  const candidates = charges.filter((charge) => wanted.has(charge.accountId));
  const now = deps.clock.now();
  const { figures, written } = await withSnapshot(deps, (client) =>
    readLedgerFigures(
      client,
      accountIds,
      candidates.map((c) => c.requestId),
      now,
    ),
  );
  const measurements: Measurement[] = [];
  accountIds.forEach((accountId, index) => {
    const ledger = figures.get(accountId);
    const snapshot = snapshots[index];
    if (!ledger || !snapshot) return; // deleted meanwhile
    const unsettled = candidates.filter((charge) => charge.accountId === accountId && !written.has(charge.requestId));
    const drift = compareCounters(snapshot, expectedCounters(ledger, unsettled), now);
    measurements.push({ accountId, drift, unsettled, recentUsage: ledger.recentUsage });
  });
  return measurements;
}

async function repair(
  deps: ReconcilerDependencies,
  settleScript: RedisScript,
  accountId: number,
  before: readonly UnsettledCharge[],
): Promise<void> {
  await rebuildAccountCounters(deps, accountId);
  // Only charges unsettled both before and after the rebuild are certainly missing from it: they
  // were in Redis before (now replaced) and not in what PostgreSQL gave the rebuild.
  const after = new Set((await unsettledFor(deps, new Set([accountId]))).map((charge) => charge.requestId));
  const missing = before.filter((charge) => after.has(charge.requestId));
  const perKey = new Map<number | null, number>();
  for (const charge of missing) perKey.set(charge.apiKeyId, (perKey.get(charge.apiKeyId) ?? 0) + charge.credits);
  const wallet = createWalletCache(deps);
  for (const [keyId, credits] of perKey) {
    if (credits === 0) continue;
    if (keyId === null) {
      await wallet.adjust(accountId, -credits);
      continue;
    }
    // The settle script with a request id that holds no reservation is a plain charge: windows,
    // lifetime spend and wallet, each where its counters exist.
    await runRedisScript(deps.redis, settleScript, admissionRedisKeys(deps.redisKeys, accountId, keyId), [
      'settle',
      deps.clock.now(),
      keyId,
      `reconcile-${randomUUID()}`,
      credits,
      COUNTER_IDLE_TTL_MS,
      0,
      0,
      0,
    ]);
  }
}

export async function reconcile(deps: ReconcilerDependencies, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const logger = deps.logger.child({ component: 'reconciler' });
  const confirmDelayMs = options.confirmDelayMs ?? 1_000;
  const perBatch = options.accountsPerBatch ?? 100;
  const settleScript = loadRedisScript('settle-6');
  const report: ReconcileReport = {
    accountsChecked: 0,
    accountsRepaired: 0,
    missingCounters: 0,
    drift: { wallet: 0, keySpent: 0, keyWindow: 0 },
    unsettledCredits: 0,
    failedJobs: 0,
  };
  try {
    const backlog = await readUnsettledEvents(deps);
    report.failedJobs = backlog.failed.size;
    let after = 0;
    for (;;) {
      const batch = options.accountIds ?? (await listAccountIdsAfter(deps.db, after, perBatch));
      if (batch.length === 0) break;
      after = Math.max(...batch);
      const measurements = await measure(deps, batch);
      report.accountsChecked += measurements.length;
      const drifting: Measurement[] = [];
      for (const measurement of measurements) {
        const { drift } = measurement;
        report.unsettledCredits += measurement.unsettled.reduce((sum, charge) => sum + charge.credits, 0);
        report.drift.wallet += Math.abs(drift.wallet);
        for (const value of drift.keySpent.values()) report.drift.keySpent += Math.abs(value);
        for (const value of drift.keyWindow.values()) report.drift.keyWindow += Math.abs(value);
        if (drift.missing && (measurement.recentUsage || measurement.unsettled.length > 0)) {
          // Lost counters (a flush): admission would reload them from PostgreSQL alone, forgetting the
          // unsettled charges; restore them now, with those charges.
          await repair(deps, settleScript, measurement.accountId, measurement.unsettled);
          report.missingCounters += 1;
          report.accountsRepaired += 1;
          logger.warn({ accountId: measurement.accountId }, 'restored missing Redis counters from PostgreSQL');
        } else if (drift.total !== 0) {
          drifting.push(measurement);
        }
      }
      if (drifting.length > 0) {
        await sleep(confirmDelayMs);
        const again = await measure(
          deps,
          drifting.map((m) => m.accountId),
        );
        for (const second of again) {
          const first = drifting.find((m) => m.accountId === second.accountId);
          if (!first || !sameDrift(first.drift, second.drift)) continue;
          await repair(deps, settleScript, second.accountId, second.unsettled);
          report.accountsRepaired += 1;
          logger.warn(
            {
              accountId: second.accountId,
              wallet: second.drift.wallet,
              keySpent: Object.fromEntries(second.drift.keySpent),
              keyWindow: Object.fromEntries(second.drift.keyWindow),
            },
            'Redis counters drifted from the ledger; rebuilt',
          );
        }
      }
      if (options.accountIds) break;
    }
  } finally {
  }
  deps.metrics.reconcileDrift.set({ kind: 'wallet' }, report.drift.wallet);
  deps.metrics.reconcileDrift.set({ kind: 'key_spent' }, report.drift.keySpent);
  deps.metrics.reconcileDrift.set({ kind: 'key_window' }, report.drift.keyWindow);
  deps.metrics.reconcileDrift.set({ kind: 'unsettled' }, report.unsettledCredits);
  // Counts, not credits: accounts whose counters had to be restored, billing jobs failed for good.
  deps.metrics.reconcileDrift.set({ kind: 'missing_accounts' }, report.missingCounters);
  deps.metrics.reconcileDrift.set({ kind: 'failed_jobs' }, report.failedJobs);
  return report;
}

export type MaintenanceHandler = (job: Job) => Promise<unknown>;

export interface ReconcilerOptions extends ReconcileOptions {
  /** How often the repeatable job runs (default 60 s). */
  everyMs?: number;
  /** Handlers of other jobs on the maintenance queue, by job name: one worker serves the queue. */
  handlers?: Record<string, MaintenanceHandler>;
}

/** Schedules the repeatable reconcile job (idempotent: one scheduler whatever the number of workers). */
export async function scheduleReconcile(queue: Queue, everyMs: number): Promise<void> {
  await queue.upsertJobScheduler(
    RECONCILE_SCHEDULER_ID,
    { every: everyMs },
    {
      name: RECONCILE_JOB_NAME,
      data: {},
      opts: { removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } },
    },
  );
}

/**
 * The job scheduler lives in Redis: a Redis that restarts empty (or is flushed) forgets it, and the
 * reconciler would never run again, exactly when it is needed most. So every maintenance worker checks
 * it whenever its connection becomes ready again and at every period; a missing scheduler is created
 * again, with one reconcile run at once, since losing it means Redis lost its counters too.
 */
export function keepReconcileScheduled(queue: Queue, connection: Redis, everyMs: number, logger: Logger): { stop(): void } {
  let checking = false;
  const ensure = async () => {
    if (checking) return;
    checking = true;
    try {
      if (await queue.getJobScheduler(RECONCILE_SCHEDULER_ID)) return;
      await scheduleReconcile(queue, everyMs);
      // Charges the API processes enqueue again after the loss (docs/billing.md §5) land over the next
      // ~15 s; extra runs bring the counters in step well before the next scheduled one.
      for (const delay of RECOVERY_RUN_DELAYS_MS) {
        await queue.add(RECONCILE_JOB_NAME, {}, { delay, removeOnComplete: { count: 100 }, removeOnFail: { count: 100 } });
      }
      logger.warn('the reconcile job scheduler was missing from Redis (restarted or flushed): scheduled again, and reconciling now');
    } catch (error) {
      logger.warn({ err: error }, 'could not check the reconcile job scheduler; retrying at the next period');
    } finally {
      checking = false;
    }
  };
  const onReady = () => void ensure();
  connection.on('ready', onReady);
  const timer = setInterval(onReady, Math.min(everyMs, SCHEDULER_CHECK_MS));
  timer.unref();
  return {
    stop() {
      clearInterval(timer);
      connection.off('ready', onReady);
    },
  };
}

/** The maintenance worker: schedules the reconcile job and runs it (and any other handler given). */
export async function startReconciler(deps: ReconcilerDependencies, options: ReconcilerOptions = {}): Promise<{ close(): Promise<void> }> {
  const logger = deps.logger.child({ component: 'reconciler' });
  const queueConnection = createRedis(deps.config.redis, { waits: true, name: 'maintenance-producer' });
  const workerConnection = createRedis(deps.config.redis, { waits: true, name: 'maintenance-worker' });
  const prefix = deps.redisKeys.bullPrefix();
  const queue = new Queue(MAINTENANCE_QUEUE_NAME, { connection: queueConnection, prefix });
  const everyMs = options.everyMs ?? 60_000;
  await scheduleReconcile(queue, everyMs);
  const keeper = keepReconcileScheduled(queue, queueConnection, everyMs, logger);
  const handlers: Record<string, MaintenanceHandler> = {
    ...options.handlers,
    [RECONCILE_JOB_NAME]: async () => reconcile(deps, options),
  };
  const worker = new Worker(
    MAINTENANCE_QUEUE_NAME,
    async (job: Job) => {
      const handler = handlers[job.name];
      if (!handler) throw new UnrecoverableError(`no handler for maintenance job ${job.name}`);
      return handler(job);
    },
    { connection: workerConnection, prefix, concurrency: 1 },
  );
  worker.on('failed', (job, error) => logger.error({ err: error, job: job?.name }, 'maintenance job failed'));
  worker.on('error', (error) => logger.warn({ err: error }, 'maintenance worker error'));
  await worker.waitUntilReady();
  return {
    async close() {
      keeper.stop();
      await worker.close();
      await queue.close();
      queueConnection.disconnect();
      workerConnection.disconnect();
    },
  };
}
