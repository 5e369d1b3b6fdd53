/** Child processes of the benchmark and their CPU time (from /proc, in microseconds). */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The repository (this file runs from `scripts/bench/` or, built, from `dist/scripts/bench/`). */
const above = path.resolve(__dirname, '..', '..');
export const ROOT = path.basename(above) === 'dist' ? path.dirname(above) : above;
const TICKS_PER_SECOND = 100;

/**
 * Runs `script` (a path under the repository, `.ts`) from the production build in `dist/` with plain
 * node, as operators run it (`npm run bench` builds first); no TypeScript loader in the measured
 * processes. `nodeArgs` go to node itself, before the script (e.g. `--cpu-prof`).
 */
export function startProcess(script: string, env: NodeJS.ProcessEnv, args: string[] = [], nodeArgs: string[] = []): ChildProcess {
  const built = path.join(ROOT, 'dist', script.replace(/\.ts$/, '.js'));
  if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first`);
  return spawn(process.execPath, [...nodeArgs, built, ...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** User and system CPU time of a process, in microseconds. */
export function cpuTimes(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: (Number(fields[11]) / TICKS_PER_SECOND) * 1e6, system: (Number(fields[12]) / TICKS_PER_SECOND) * 1e6 };
}

/** utime + stime of a process, in microseconds. */
export function cpuMicros(pid: number): number {
  const { user, system } = cpuTimes(pid);
  return user + system;
}

export async function waitFor(url: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      /* not yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not come up`);
}

/** SIGTERM, then SIGKILL after `graceMs` (a CPU profile is written only on a clean exit: give it time). */
export async function stopProcess(child: ChildProcess, graceMs = 5_000): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      resolve();
    }, graceMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
