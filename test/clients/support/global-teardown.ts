/** Stops the stack started by the global setup and drops its database and Redis keys. */
import type { Stack } from './stack';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { clientSuiteStack?: Stack }).clientSuiteStack?.stop();
}
