/**
 * Stops the stack started by the global setup, drops its database and Redis keys, and keeps its
 * output (the gateway's access log, the simulator's and worker's lines) in `last-stack.log` for a
 * failing run to be read against.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Stack } from './stack';

export const STACK_LOG = path.resolve(__dirname, '..', 'last-stack.log');

export default async function globalTeardown(): Promise<void> {
  const stack = (globalThis as { clientSuiteStack?: Stack }).clientSuiteStack;
  if (stack === undefined) return;
  await stack.stop();
  writeFileSync(STACK_LOG, `${stack.output.join('\n')}\n`);
  console.log(`client suite: the stack's output is in ${STACK_LOG}`);
}
