/**
 * The worker process: `npm run worker -- --queues tasks,billing,maintenance` (or WORKER_QUEUES).
 * Holds nothing but the jobs it has leased; run any number of them. Refuses to start with a queue
 * it has no handler for.
 */
import { ConfigError, loadConfig } from '../src/config';
import { migrate } from '../src/db/migrate';
import { buildDependencies, checkReachable, closeDependencies, ServiceUnreachableError } from '../src/process/build-dependencies';
import { startBillingWorker } from './billing-worker';
import { startReconciler } from './reconciler';
import { startTaskWorker } from './task-worker';
import type { Dependencies } from '../src/dependencies';

type Handle = { close(): Promise<void> };

const HANDLERS: Record<string, (deps: Dependencies, concurrency: number) => Promise<Handle>> = {
  // Many usage events per transaction is what makes settling cheap: read up to 500 at once.
  billing: (deps, concurrency) => startBillingWorker(deps, { concurrency: Math.max(concurrency, 16), maxBatch: 500 }),
  tasks: (deps, concurrency) => startTaskWorker(deps, { concurrency }),
  maintenance: (deps) => startReconciler(deps),
};

function queuesFromArgs(defaults: string[]): string[] {
  const index = process.argv.indexOf('--queues');
  if (index < 0) return defaults;
  return (process.argv[index + 1] ?? '').split(',').map((q) => q.trim()).filter(Boolean);
}

async function main(): Promise<void> {
  const config = loadConfig();
  const queues = queuesFromArgs(config.worker.queues);
  const unknown = queues.filter((q) => !HANDLERS[q]);
  if (unknown.length > 0) throw new ConfigError([`no handler for queue(s) ${unknown.join(', ')}; known: ${Object.keys(HANDLERS).join(', ')}`]);
  const deps = buildDependencies(config, { processName: 'worker' });
  await checkReachable(config, deps);
  await migrate(config.databaseUrl);
  await deps.storage.ensureBucket().catch((error: Error) => deps.logger.warn(`object storage not ready: ${error.message}`));
  const handles: Handle[] = [];
  for (const queue of queues) handles.push(await HANDLERS[queue](deps, config.worker.concurrency));
  deps.logger.info({ queues }, 'worker started');
  const stop = async () => {
    await Promise.all(handles.map((h) => h.close().catch(() => undefined)));
    await closeDependencies(deps);
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof ServiceUnreachableError) console.error((error as Error).message);
  else console.error('worker failed to start:', error);
  process.exit(1);
});
