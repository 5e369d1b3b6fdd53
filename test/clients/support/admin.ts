/** The operator CLI (`scripts/admin.ts --json`) run against the suite's stack: for cells that need data of their own. */
import path from 'node:path';
import { runProcess } from './run-process';
import { suite } from './suite';

const ROOT = path.resolve(__dirname, '..', '..', '..');

export async function runAdmin(args: string[]): Promise<Record<string, unknown>> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  const result = await runProcess(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/admin.ts'), ...args, '--json'], {
    cwd: ROOT,
    env: { ...env, ...suite().adminEnv },
    timeoutMs: 60_000,
  });
  if (result.code !== 0)
    throw new Error(`admin ${args.slice(0, 2).join(' ')} failed (${result.code ?? result.signal}): ${result.stderr || result.stdout}`);
  return JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
}
