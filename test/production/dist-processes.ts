/**
 * The gateway's processes run the way production runs them: plain `node` from `dist/` (built by
 * `npm run build`; CI builds before the tests, a missing build is made here). Each process gets the
 * test's environment (its own database and Redis prefix), a fixed loopback port when a load
 * balancer must know it, and is stopped with SIGTERM like an orchestrator would.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '..', '..');
const DIST_API = path.join(ROOT, 'dist', 'src', 'server.js');

export function ensureBuilt(): void {
  if (existsSync(DIST_API)) return;
  execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' });
}

/** A free loopback port (asked of the kernel, then released for the process that will bind it). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface DistProcess {
  child: ChildProcess;
  /** Everything the process wrote (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
  /** Sends the signal and waits for the exit; SIGKILL after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | null>;
}

export function spawnDist(script: string, env: Record<string, string>, args: string[] = []): DistProcess {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist', script), ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM', timeoutMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export async function waitForReady(url: string, process: DistProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (process.child.exitCode !== null) throw new Error(`process exited (${process.child.exitCode}) before ready:\n${process.output()}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`not ready at ${url} after ${timeoutMs} ms:\n${process.output()}`);
}

export interface DistApi extends DistProcess {
  url: string;
  port: number;
  /** Milliseconds from spawn to the first 200 of /readyz. */
  readyMs: number;
}

export async function startDistApi(env: Record<string, string>, port?: number): Promise<DistApi> {
  const chosen = port ?? (await freePort());
  const started = Date.now();
  const api = spawnDist('src/server.js', {
    ...env,
    LOG_LEVEL: env.LOG_LEVEL === 'silent' ? 'warn' : (env.LOG_LEVEL ?? 'warn'),
    PORT: String(chosen),
    HOST: '127.0.0.1',
  });
  const url = `http://127.0.0.1:${chosen}`;
  await waitForReady(url, api);
  return { ...api, url, port: chosen, readyMs: Date.now() - started };
}

export async function startDistWorker(env: Record<string, string>, queues = 'tasks,billing'): Promise<DistProcess> {
  const worker = spawnDist('workers/index.js', { ...env, LOG_LEVEL: 'info' }, ['--queues', queues]);
  const deadline = Date.now() + 30_000;
  while (!worker.output().includes('worker started')) {
    if (worker.child.exitCode !== null || Date.now() > deadline) throw new Error(`worker did not start:\n${worker.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return worker;
}
