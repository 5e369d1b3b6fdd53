/**
 * The quick start (`npm start`) as a new operator runs it, on a fresh database and free ports: it
 * listens on 127.0.0.1 unless HOST says otherwise and its banner says which; the console login's
 * password is generated for the install, kept beside the generated secrets, printed in the banner,
 * works, and stays the same on the next start. A demo login left with the password earlier versions
 * published is moved to the install's own. With DATABASE_URL unset and nothing answering on the
 * default port, it runs an embedded PostgreSQL there and stops it on exit; production never does.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { hashPassword } from '../../../src/auth/hash-password';
import { verifyPassword } from '../../../src/auth/verify-password';
import { loadConfig } from '../../../src/config';
import { ensureDemoLogin } from '../../../src/process/demo-login';
import { ensurePostgres, ensureRedis } from '../../../src/process/local-services';
import { createTestDatabase, type TestDatabase } from '../../support/database';
import { createTestRedis, TEST_REDIS_URL, type TestRedis } from '../../support/redis';

jest.setTimeout(240_000);

const ROOT = path.resolve(__dirname, '../../..');

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The local addresses listening on a TCP port (IPv4, from /proc/net/tcp). */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields[1]?.endsWith(`:${hexPort}`) && fields[3] === '0A')
    .map((fields) =>
      fields[1]!
        .split(':')[0]!
        .match(/../g)!
        .reverse()
        .map((byte) => parseInt(byte, 16))
        .join('.'),
    );
}

interface Started {
  child: ChildProcess;
  banner: string;
  port: number;
}

async function startQuickStart(env: Record<string, string>): Promise<Started> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'start.ts')], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      ...env,
      PORT: String(port),
      SIM_PORT: String(await freePort()),
      EMBEDDED_S3_PORT: String(await freePort()),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const banner = await new Promise<string>((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ctrl-C stops everything')) resolve(output);
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', (code) => reject(new Error(`npm start exited (${code}):\n${output}`)));
  });
  return { child, banner, port };
}

async function stop(started: Started): Promise<void> {
  if (started.child.exitCode !== null) return;
  const exited = new Promise((resolve) => started.child.once('exit', resolve));
  started.child.kill('SIGTERM');
  await exited;
}

describe('the quick start', () => {
  let db: TestDatabase;
  let redis: TestRedis;
  let env: Record<string, string>;
  let dir: string;
  beforeAll(async () => {
    db = await createTestDatabase();
    redis = await createTestRedis();
    dir = mkdtempSync(path.join(os.tmpdir(), 'gw-quick-start-'));
    // Run as root, the embedded PostgreSQL runs as a `postgres` user, which must reach its data directory.
    chmodSync(dir, 0o755);
    env = {
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: redis.prefix,
      LOG_LEVEL: 'warn',
      SECRETS_FILE: path.join(dir, 'secrets.json'),
      EMBEDDED_S3_DIR: path.join(dir, 's3'),
    };
  });
  afterAll(async () => {
    await redis.cleanup();
    await db.drop();
  });

  it('binds 127.0.0.1 and says so; prints the generated console password, which logs in and is kept for the next start', async () => {
    const first = await startQuickStart(env);
    let password: string;
    try {
      expect(first.banner).toContain(
        `Gateway ready at http://127.0.0.1:${first.port}   (this machine only; HOST=0.0.0.0 opens it to the network)`,
      );
      expect(listeningAddresses(first.port)).toEqual(['127.0.0.1']);
      const stored = JSON.parse(readFileSync(path.join(dir, 'console-login.json'), 'utf8')) as { password: string };
      password = stored.password;
      expect(password).toMatch(/^[A-Za-z0-9_-]{16}$/);
      expect(first.banner).toContain(`login demo@gateway.local / ${password} (generated for this install`);
      expect(first.banner).not.toContain('demo-console-password');
      expect(first.banner).toMatch(/Upstreams: the provider simulator at .* \(simulated answers/);
      const login = await fetch(`http://127.0.0.1:${first.port}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'demo@gateway.local', password }),
      });
      expect(login.status).toBe(200);
    } finally {
      await stop(first);
    }
    const second = await startQuickStart({ ...env, HOST: '0.0.0.0' });
    try {
      expect(second.banner).toContain(`(listening on every interface, HOST=0.0.0.0: reachable from other machines)`);
      expect(listeningAddresses(second.port)).toEqual(['0.0.0.0']);
      expect(second.banner).toContain(`login demo@gateway.local / ${password} (generated for this install`);
    } finally {
      await stop(second);
    }
  });

  it('nothing to install first: with DATABASE_URL unset and nothing on the default port, an embedded PostgreSQL serves it and stops with it', async () => {
    const port = await freePort();
    const pgEnv = {
      ...env,
      POSTGRES_PORT: String(port),
      EMBEDDED_POSTGRES_DIR: path.join(dir, 'postgres'),
      SECRETS_FILE: path.join(dir, 'embedded', 'secrets.json'),
    };
    delete (pgEnv as Record<string, string>).DATABASE_URL;
    const started = await startQuickStart(pgEnv);
    try {
      expect(started.banner).toContain(`embedded PostgreSQL on 127.0.0.1:${port}`);
      const { password } = JSON.parse(readFileSync(path.join(dir, 'embedded', 'console-login.json'), 'utf8')) as { password: string };
      const login = await fetch(`http://127.0.0.1:${started.port}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'demo@gateway.local', password }),
      });
      expect(login.status).toBe(200);
      expect(listeningAddresses(port).length).toBeGreaterThan(0);
    } finally {
      await stop(started);
    }
    expect(listeningAddresses(port)).toEqual([]);
  });

  it('production never starts a local PostgreSQL: nothing answering is an error', async () => {
    const port = await freePort();
    const config = loadConfig({
      NODE_ENV: 'production',
      ENCRYPTION_KEY: 'a'.repeat(64),
      HMAC_SECRET: 'b'.repeat(32),
      POSTGRES_PORT: String(port),
      EMBEDDED_POSTGRES_DIR: path.join(dir, 'never'),
    });
    await expect(ensurePostgres(config)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    expect(existsSync(path.join(dir, 'never'))).toBe(false);
  });

  it('Redis: with REDIS_URL unset and nothing answering, redis-server from the PATH serves and stops; without one, one line says what to install', async () => {
    const port = await freePort();
    const config = {
      ...loadConfig({ ...env, REDIS_URL: `redis://127.0.0.1:${port}`, EMBEDDED_POSTGRES_DIR: path.join(dir, 'pg-for-redis') }),
      explicit: { databaseUrl: true, redisUrl: false },
    };
    const service = await ensureRedis(config);
    expect(service?.description).toBe(`redis-server on 127.0.0.1:${port}`);
    expect(listeningAddresses(port)).toEqual(['127.0.0.1']);
    await service!.stop();
    expect(listeningAddresses(port)).toEqual([]);

    const path_ = process.env.PATH;
    process.env.PATH = '/nonexistent';
    try {
      await expect(ensureRedis(config)).rejects.toThrow(
        `Redis is not running at 127.0.0.1:${port} and redis-server is not installed: install Redis (apt-get install redis-server, brew install redis) or run docker compose up -d redis`,
      );
    } finally {
      process.env.PATH = path_;
    }
    // Set explicitly, or in production, nothing is started.
    await expect(ensureRedis({ ...config, explicit: { databaseUrl: true, redisUrl: true } })).rejects.toThrow(
      /^Redis is not reachable at 127\.0\.0\.1:\d+\. Start it/,
    );
  });

  it("a demo login with the formerly published password is moved to the install's own", async () => {
    const other = await createTestDatabase();
    try {
      const account = await other.pool.query<{ id: string }>(
        "INSERT INTO accounts (name, kind, tier) VALUES ('demo', 'user', 'pro') RETURNING id",
      );
      await other.pool.query("INSERT INTO console_users (account_id, email, password_hash) VALUES ($1, 'demo@gateway.local', $2)", [
        account.rows[0]!.id,
        await hashPassword('demo-console-password'),
      ]);
      const secretsFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'gw-demo-')), 'secrets.json');
      const line = await ensureDemoLogin(other.pool, { email: 'demo@gateway.local', secretsFile });
      const { password } = JSON.parse(readFileSync(path.join(path.dirname(secretsFile), 'console-login.json'), 'utf8')) as {
        password: string;
      };
      expect(line).toContain(`/ ${password} `);
      const hash = (await other.pool.query<{ password_hash: string }>('SELECT password_hash FROM console_users')).rows[0]!.password_hash;
      expect(await verifyPassword('demo-console-password', hash)).toBe(false);
      expect(await verifyPassword(password, hash)).toBe(true);
    } finally {
      await other.drop();
    }
  });
});
