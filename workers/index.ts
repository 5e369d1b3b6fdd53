/**
 * The worker process: `npm run worker -- --queues tasks,billing,maintenance,webhooks` (or WORKER_QUEUES).
 * Holds nothing but the jobs it has leased; run any number of them. Refuses to start with a queue
 * it has no handler for.
 */
import { startCatalogSync } from '../src/catalog/catalog-sync';
import { DEFAULT_CATALOG } from '../src/catalog/default-catalog';
import { ConfigError, loadConfig } from '../src/config';
import { migrate } from '../src/db/migrate';
import { buildDependencies, checkReachable, closeDependencies, ServiceUnreachableError } from '../src/process/build-dependencies';
import { startBillingWorker } from './billing-worker';
import { startReconciler } from './reconciler';
import { startRequestLogMaintenance } from './request-log-maintenance';
import { startRequestLogWorker } from './request-log-worker';
import { startTaskWorker } from './task-worker';
import { startWebhookWorker } from './webhook-worker';
import type { Dependencies } from '../src/dependencies';

type Handle = { close(): Promise<void> };

const HANDLERS: Record<string, (deps: Dependencies, concurrency: number) => Promise<Handle>> = {
  // Many usage events per transaction is what makes settling cheap: read up to 500 at once.
  // The request log's stream is drained beside the usage stream (issue 22): same workers, same batching.
  billing: async (deps, concurrency) =>
    bothOf(
      await startBillingWorker(deps, {
        concurrency: Math.max(concurrency, 16),
        maxBatch: 500,
        lockDurationMs: deps.config.billingClaimIdleMs,
        lingerMs: deps.config.billingLingerMs,
      }),
      await startRequestLogWorker(deps, { claimIdleMs: deps.config.billingClaimIdleMs, lingerMs: deps.config.billingLingerMs }),
    ),
  tasks: (deps, concurrency) => startTaskWorker(deps, { concurrency }),
  maintenance: async (deps) => bothOf(await startReconciler(deps), startRequestLogMaintenance(deps)),
  webhooks: (deps, concurrency) => startWebhookWorker(deps, { concurrency }),
};

function bothOf(first: Handle, second: Handle): Handle {
  return {
    close: async () => {
      await Promise.all([first.close(), second.close()]);
    },
  };
}

function queuesFromArgs(defaults: string[]): string[] {
  const index = process.argv.indexOf('--queues');
  if (index < 0) return defaults;
  return (process.argv[index + 1] ?? '')
    .split(',')
    .map((q) => q.trim())
    .filter(Boolean);
}

async function main(): Promise<void> {
  const config = loadConfig();
  const queues = queuesFromArgs(config.worker.queues);
  const unknown = queues.filter((q) => !HANDLERS[q]);
  if (unknown.length > 0)
    throw new ConfigError([`no handler for queue(s) ${unknown.join(', ')}; known: ${Object.keys(HANDLERS).join(', ')}`]);
  const deps = buildDependencies(config, { processName: 'worker' });
  await checkReachable(config, deps);
  await migrate(config.databaseUrl);
  await deps.storage.ensureBucket().catch((error: Error) => deps.logger.warn(`object storage not ready: ${error.message}`));
  // Task steps look their model up: the catalog follows PostgreSQL here as in the API.
  const catalogSync = await startCatalogSync(deps, { defaults: DEFAULT_CATALOG });
  const handles: Handle[] = [{ close: async () => catalogSync.close() }];
  for (const queue of queues) handles.push(await HANDLERS[queue](deps, config.worker.concurrency));
  deps.logger.info({ queues }, 'worker started');
  stopOnSignals(deps, handles);
}

/**
 * SIGTERM/SIGINT: every queue stops taking jobs and finishes the ones it holds (BullMQ `close()`),
 * for at most `SHUTDOWN_GRACE_MS`; a job still running then is handed back when its lock expires
 * (another worker's stalled-job check takes it; settlement is idempotent). Exits 0. A second signal
 * exits at once.
 */
function stopOnSignals(deps: Dependencies, handles: Handle[]): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    deps.logger.info({ signal }, 'worker stopping: finishing the jobs in hand');
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), deps.config.shutdownGraceMs);
    });
    const finished = Promise.all(handles.map((h) => h.close().catch(() => undefined))).then(() => true);
    void Promise.race([finished, expired]).then(async (clean) => {
      clearTimeout(timer);
      if (!clean) deps.logger.warn('grace period over: jobs still running are handed back when their locks expire');
      await closeDependencies(deps).catch(() => undefined);
      deps.logger.info('worker stopped');
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof ServiceUnreachableError) console.error((error as Error).message);
  else console.error('worker failed to start:', error);
  process.exit(1);
});
