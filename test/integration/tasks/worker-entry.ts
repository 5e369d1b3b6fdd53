/**
 * A task worker as its own process, as in production, configured from createTestDependencies().env
 * plus test knobs: TASK_TEST_CONCURRENCY, TASK_TEST_LOCK_MS, TASK_TEST_SWEEP_MS and
 * TASK_TEST_HANG_BEFORE_FINALIZE=1 (announce `HANG <taskId>` and stop before finalizing, so the
 * test can SIGKILL the process at the worst moment). Prints `READY` once consuming.
 */
import { loadConfig } from '../../../src/config';
import { buildDependencies, closeDependencies } from '../../../src/process/build-dependencies';
import { startTaskWorker } from '../../../workers/task-worker';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const deps = buildDependencies(config, { processName: 'task-test-worker' });
  await deps.storage.ensureBucket();
  const hang = process.env.TASK_TEST_HANG_BEFORE_FINALIZE === '1';
  const worker = await startTaskWorker(deps, {
    concurrency: Number(process.env.TASK_TEST_CONCURRENCY ?? 4),
    lockDurationMs: Number(process.env.TASK_TEST_LOCK_MS ?? 30_000),
    sweepIntervalMs: Number(process.env.TASK_TEST_SWEEP_MS ?? 0),
    ...(process.env.TASK_TEST_SWEEP_STALE_MS ? { sweepStaleMs: Number(process.env.TASK_TEST_SWEEP_STALE_MS) } : {}),
    hooks: hang
      ? {
          beforeFinalize: async (taskId) => {
            process.stdout.write(`HANG ${taskId}\n`);
            await new Promise<never>(() => undefined);
          },
        }
      : {},
  });
  process.stdout.write('READY\n');
  process.on('SIGTERM', () => {
    void worker
      .close()
      .then(() => closeDependencies(deps))
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`worker entry failed: ${String(error)}\n`);
  process.exit(1);
});
