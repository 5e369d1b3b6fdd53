/**
 * The real stack the client suite talks to: `scripts/start.ts` (the quick start a new user runs) as
 * its own process tree (simulator, API, worker, embedded S3), on a fresh PostgreSQL database and
 * Redis prefix, on free loopback ports. Its output (the gateway's access log included) is kept so a
 * failing cell can be matched with what the gateway answered.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { createTestRedis, TEST_REDIS_URL, type TestRedis } from '../../support/redis';

const ROOT = path.resolve(__dirname, '..', '..', '..');

export interface Stack {
  url: string;
  simulatorUrl: string;
  key: string;
  /** The stack's own settings (database, Redis prefix, secrets): what the operator CLI needs to change its data. */
  adminEnv: Record<string, string>;
  output: string[];
  stop(): Promise<void>;
}

/** A port the kernel just handed out and took back: free for the stack to bind a moment later. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function waitForBanner(child: ChildProcess, output: string[], timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the stack did not print its banner in ${timeoutMs} ms:\n${output.slice(-30).join('\n')}`)),
      timeoutMs,
    );
    const check = (): void => {
      if (output.some((line) => line.includes('Gateway ready at'))) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the stack exited (${signal ?? code}) before it was ready:\n${output.slice(-30).join('\n')}`));
    });
  });
}

function collect(child: ChildProcess, output: string[]): void {
  for (const stream of [child.stdout, child.stderr]) {
    let buffer = '';
    stream?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('utf8');
      const lines = buffer.split('\n');
      buffer = lines.pop() ?? '';
      output.push(...lines);
    });
  }
}

export async function startStack(): Promise<Stack> {
  const database: TestDatabase = await createTestDatabase();
  await database.pool.end();
  const redis: TestRedis = await createTestRedis();
  const directory = mkdtempSync(path.join(os.tmpdir(), 'gw-clients-stack-'));
  const [port, simPort, s3Port] = [await freePort(), await freePort(), await freePort()];
  const key = `sk-svc-clients${randomBytes(16).toString('hex')}`;
  const adminEnv: Record<string, string> = {
    NODE_ENV: 'development',
    SECRETS_FILE: path.join(directory, 'secrets.json'),
    DATABASE_URL: database.url,
    REDIS_URL: TEST_REDIS_URL,
    REDIS_PREFIX: redis.prefix,
  };
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...adminEnv,
    HOST: '127.0.0.1',
    PORT: String(port),
    SIM_PORT: String(simPort),
    EMBEDDED_S3_PORT: String(s3Port),
    EMBEDDED_S3_DIR: path.join(directory, 's3'),
    BOOTSTRAP_API_KEY: key,
    LOG_LEVEL: 'info',
  };
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts/start.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  collect(child, output);
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await redis.cleanup().catch(() => undefined);
    await database.drop().catch(() => undefined);
    rmSync(directory, { recursive: true, force: true });
  };
  try {
    await waitForBanner(child, output, 90_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, simulatorUrl: `http://127.0.0.1:${simPort}`, key, adminEnv, output, stop };
}
