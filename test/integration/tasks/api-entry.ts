/** A separate API process for the two-process test: env from createTestDependencies().env; prints `LISTENING <url>`. */
import { loadConfig } from '../../../src/config';
import { buildDependencies, closeDependencies } from '../../../src/process/build-dependencies';
import { startTaskApi } from './task-api';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  const deps = buildDependencies(config, { processName: 'task-test-api' });
  const api = await startTaskApi(deps, { heartbeatMs: Number(process.env.TASK_TEST_HEARTBEAT_MS ?? 15_000) });
  process.stdout.write(`LISTENING ${api.url}\n`);
  process.on('SIGTERM', () => {
    void api
      .close()
      .then(() => closeDependencies(deps))
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`api entry failed: ${String(error)}\n`);
  process.exit(1);
});
