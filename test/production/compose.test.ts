/**
 * The compose stack without docker: the compose file parses and wires the bootstrap before the API
 * and worker; every variable it interpolates and every variable the gateway reads is documented in
 * .env.example; the gateway environment it gives the services loads with the example's values and
 * fails naming the secrets when they are unset; the default DATABASE_URL and REDIS_URL match the
 * postgres and redis services (`docker compose up -d postgres redis && npm start`); and an empty
 * database is bootstrapped the way the bootstrap service does it (same command, same environment,
 * twice: the second run changes nothing), and refused, loudly and before anything is created, when a
 * required value (the secrets, the first operator's password) is unset. scripts/compose-check.sh runs the docker steps where it can.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { startSimulator, type Simulator } from '../../scripts/provider-sim/server';
import { createSecretCrypto } from '../../src/auth/secret-crypto';
import { verifyPassword } from '../../src/auth/verify-password';
import { CONFIG_VARIABLES, ConfigError, loadConfig } from '../../src/config';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createTestRedis, TEST_REDIS_URL, type TestRedis } from '../support/redis';

jest.setTimeout(120_000);

const ROOT = path.resolve(__dirname, '../..');
const COMPOSE_TEXT = readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8');
const COMPOSE = parse(COMPOSE_TEXT, { merge: true }) as {
  services: Record<
    string,
    { command?: string[]; environment?: Record<string, string>; depends_on?: Record<string, { condition: string }>; ports?: string[] }
  >;
};

/** `.env.example` as name → value (comments and blank lines skipped). */
function exampleEnv(): Record<string, string> {
  const entries = readFileSync(path.join(ROOT, '.env.example'), 'utf8')
    .split('\n')
    .filter((line) => /^[A-Z0-9_]+=/.test(line))
    .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as const);
  return Object.fromEntries(entries);
}

/** Compose's interpolation of `${X}`, `${X:-default}` and `${X:?message}` (a missing `:?` variable throws, as compose does). */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{([A-Z0-9_]+)(?:(:-|:\?)([^}]*))?\}/g, (_, name: string, operator: string | undefined, rest: string) => {
    const set = env[name] !== undefined && env[name] !== '';
    if (set) return env[name]!;
    if (operator === ':?') throw new Error(`compose: ${name}: ${rest}`);
    return operator === ':-' ? rest : '';
  });
}

function serviceEnv(service: string, env: Record<string, string>): Record<string, string> {
  const raw = COMPOSE.services[service]!.environment ?? {};
  return Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, interpolate(String(value), env)]));
}

describe('the compose file and its environment', () => {
  it('has the stack, with the bootstrap finishing before the API and the worker start', () => {
    expect(Object.keys(COMPOSE.services).sort()).toEqual(['api', 'bootstrap', 'minio', 'postgres', 'redis', 'simulator', 'worker']);
    expect(COMPOSE.services.bootstrap!.command).toEqual(['node', 'dist/scripts/bootstrap.js']);
    for (const service of ['api', 'worker'])
      expect(COMPOSE.services[service]!.depends_on!.bootstrap).toEqual({ condition: 'service_completed_successfully' });
    for (const service of ['postgres', 'redis', 'minio', 'simulator']) {
      for (const port of COMPOSE.services[service]!.ports ?? []) expect(port).toMatch(/^127\.0\.0\.1:/);
    }
  });

  it('.env.example documents every variable compose interpolates and every variable the gateway reads', () => {
    const documented = Object.keys(exampleEnv());
    const interpolated = [...COMPOSE_TEXT.matchAll(/\$\{([A-Z0-9_]+)/g)].map((m) => m[1]!);
    expect(interpolated.filter((name) => !documented.includes(name))).toEqual([]);
    expect(CONFIG_VARIABLES.filter((name) => !documented.includes(name))).toEqual([]);
  });

  it("the services' gateway environment loads with the example's values plus secrets, and names the secrets when they are unset", () => {
    const secrets = {
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      HMAC_SECRET: randomBytes(32).toString('hex'),
      BOOTSTRAP_OPERATOR_PASSWORD: 'a long operator password',
    };
    for (const service of ['api', 'worker', 'bootstrap']) {
      const config = loadConfig(serviceEnv(service, { ...exampleEnv(), ...secrets }));
      expect(config.env).toBe('production');
      expect(config.encryptionKey.toString('hex')).toBe(secrets.ENCRYPTION_KEY);
    }
    expect(loadConfig(serviceEnv('api', { ...exampleEnv(), ...secrets })).host).toBe('0.0.0.0');
    let thrown: unknown;
    try {
      loadConfig(serviceEnv('api', exampleEnv()));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems.map((p) => p.split(':')[0])).toEqual(['ENCRYPTION_KEY', 'HMAC_SECRET']);
  });

  it('no variable is required to read the file, so `up -d postgres redis` needs no .env; the required values are refused by the processes', () => {
    // Compose interpolates the whole file for any command: a `:?` anywhere would make starting postgres and redis alone demand it.
    expect(COMPOSE_TEXT).not.toMatch(/\$\{[A-Z0-9_]+:?\?/);
    for (const service of Object.keys(COMPOSE.services)) expect(() => serviceEnv(service, {})).not.toThrow();
    for (const service of ['api', 'worker', 'bootstrap']) {
      expect(serviceEnv(service, {})).toMatchObject({ NODE_ENV: 'production', ENCRYPTION_KEY: '', HMAC_SECRET: '' });
    }
    expect(serviceEnv('bootstrap', {}).BOOTSTRAP_OPERATOR_PASSWORD).toBe('');
    expect(exampleEnv()).toMatchObject({ ENCRYPTION_KEY: '', HMAC_SECRET: '', BOOTSTRAP_OPERATOR_PASSWORD: '' });
  });

  it('the default DATABASE_URL and REDIS_URL reach the compose postgres and redis services', () => {
    const defaults = loadConfig({ ENCRYPTION_KEY: 'a'.repeat(64), HMAC_SECRET: 'b'.repeat(32) });
    const database = new URL(defaults.databaseUrl);
    const postgres = serviceEnv('postgres', {});
    expect({ user: database.username, password: database.password, db: database.pathname.slice(1), port: database.port }).toEqual({
      user: postgres.POSTGRES_USER,
      password: postgres.POSTGRES_PASSWORD,
      db: postgres.POSTGRES_DB,
      port: '5432',
    });
    expect(COMPOSE.services.postgres!.ports!.map((port) => interpolate(port, exampleEnv()))).toEqual([`127.0.0.1:${database.port}:5432`]);
    expect(defaults.redis.kind).toBe('server');
    expect(COMPOSE.services.redis!.ports).toEqual([`127.0.0.1:${new URL((defaults.redis as { url: string }).url).port}:6379`]);
    // The API inside compose reaches the same database.
    expect(serviceEnv('api', exampleEnv()).DATABASE_URL).toBe(
      `postgres://${postgres.POSTGRES_USER}:${postgres.POSTGRES_PASSWORD}@postgres:5432/${postgres.POSTGRES_DB}`,
    );
  });
});

describe('bootstrapping an empty database as the compose bootstrap service does', () => {
  let db: TestDatabase;
  let redis: TestRedis;
  let sim: Simulator;
  beforeAll(async () => {
    db = await createTestDatabase();
    redis = await createTestRedis();
    sim = await startSimulator({ port: 0 });
  });
  afterAll(async () => {
    await sim.close();
    await redis.cleanup();
    await db.drop();
  });

  function runBootstrap(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
    const [node, script] = COMPOSE.services.bootstrap!.command!; // node dist/scripts/bootstrap.js, run here from its source
    expect(node).toBe('node');
    const source = path.join(ROOT, script!.replace(/^dist\//, '').replace(/\.js$/, '.ts'));
    return new Promise((resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', source],
        { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
        (error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
    });
  }

  it('creates the account, the first key and the operator login from environment values; a second run changes nothing', async () => {
    const values = {
      ...exampleEnv(),
      ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      HMAC_SECRET: randomBytes(32).toString('hex'),
      BOOTSTRAP_OPERATOR_PASSWORD: 'a long operator password',
      BOOTSTRAP_API_KEY: `sk-compose-${randomBytes(12).toString('hex')}`,
    };
    // The service's environment, with this machine's PostgreSQL, Redis and simulator in place of the containers.
    const env = {
      ...serviceEnv('bootstrap', values),
      DATABASE_URL: db.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: redis.prefix,
      SIM_BASE_URL: sim.url,
      LOG_LEVEL: 'warn',
    };
    const first = await runBootstrap(env);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(first.stdout).toContain('bootstrap: operator login operator@gateway.local created');

    const crypto = createSecretCrypto(Buffer.from(values.ENCRYPTION_KEY, 'hex'), values.HMAC_SECRET);
    const key = await db.pool.query(
      'SELECT k.name, g.name AS group_name FROM api_keys k JOIN routing_groups g ON g.id = k.group_id WHERE k.secret_hmac = $1',
      [crypto.hmac(values.BOOTSTRAP_API_KEY)],
    );
    expect(key.rows).toEqual([{ name: 'bootstrap', group_name: 'default' }]);
    const operator = await db.pool.query<{ role: string; password_hash: string }>(
      "SELECT role, password_hash FROM console_users WHERE email = 'operator@gateway.local'",
    );
    expect(operator.rows[0]!.role).toBe('operator');
    expect(await verifyPassword(values.BOOTSTRAP_OPERATOR_PASSWORD, operator.rows[0]!.password_hash)).toBe(true);
    const upstreams = await db.pool.query<{ base_url: string }>('SELECT DISTINCT base_url FROM upstream_accounts');
    expect(upstreams.rows).toEqual([{ base_url: sim.url }]);

    const counts = async () =>
      (
        await db.pool.query(
          'SELECT (SELECT count(*) FROM accounts) AS a, (SELECT count(*) FROM api_keys) AS k, (SELECT count(*) FROM console_users) AS u, (SELECT count(*) FROM upstream_accounts) AS up',
        )
      ).rows[0];
    const before = await counts();
    const second = await runBootstrap(env);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain('nothing created');
    expect(await counts()).toEqual(before);
  });

  it('refuses an empty database without BOOTSTRAP_OPERATOR_PASSWORD in one line, creating nothing (so the API and worker never start); later runs do not need it', async () => {
    const other = await createTestDatabase();
    try {
      const values = { ...exampleEnv(), ENCRYPTION_KEY: randomBytes(32).toString('hex'), HMAC_SECRET: randomBytes(32).toString('hex') };
      const env = {
        ...serviceEnv('bootstrap', values),
        DATABASE_URL: other.url,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: redis.prefix,
        SIM_BASE_URL: sim.url,
        LOG_LEVEL: 'warn',
      };
      const counts = async () =>
        (
          await other.pool.query(
            'SELECT (SELECT count(*)::int FROM accounts) AS a, (SELECT count(*)::int FROM api_keys) AS k, (SELECT count(*)::int FROM console_users) AS u',
          )
        ).rows[0];
      const refused = await runBootstrap(env);
      expect(refused.code).toBe(1);
      expect(refused.stderr.trim().split('\n')).toEqual([
        'bootstrap: invalid configuration: BOOTSTRAP_OPERATOR_PASSWORD: required in production on an empty database (the first operator console login, at least 12 characters; see .env.example); nothing created',
      ]);
      expect(await counts()).toEqual({ a: 0, k: 0, u: 0 });

      const created = await runBootstrap({ ...env, BOOTSTRAP_OPERATOR_PASSWORD: 'a long operator password' });
      expect(created.code).toBe(0);
      expect(created.stdout).toContain('bootstrap: operator login operator@gateway.local created');
      // A later `up` with the password removed from .env leaves the database as it is.
      const later = await runBootstrap(env);
      expect({ code: later.code, stderr: later.stderr }).toEqual({ code: 0, stderr: '' });
      expect(later.stdout).toContain('bootstrap: operator login operator@gateway.local exists');
    } finally {
      await other.drop();
    }
  });

  it('outside production an empty database without an operator password is bootstrapped, with a hint', async () => {
    const other = await createTestDatabase();
    try {
      const run = await runBootstrap({
        NODE_ENV: 'development',
        ENCRYPTION_KEY: randomBytes(32).toString('hex'),
        HMAC_SECRET: randomBytes(32).toString('hex'),
        DATABASE_URL: other.url,
        REDIS_URL: TEST_REDIS_URL,
        REDIS_PREFIX: redis.prefix,
        SIM_BASE_URL: sim.url,
        LOG_LEVEL: 'warn',
      });
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('bootstrap: no operator login (set BOOTSTRAP_OPERATOR_PASSWORD, or: admin user create --role operator)');
      expect((await other.pool.query('SELECT count(*)::int AS n FROM accounts')).rows[0]).toEqual({ n: 1 });
    } finally {
      await other.drop();
    }
  });

  it('refuses to run without the secrets, naming them, and creates nothing', async () => {
    const other = await createTestDatabase();
    try {
      const run = await runBootstrap({ ...serviceEnv('bootstrap', exampleEnv()), DATABASE_URL: other.url, REDIS_URL: TEST_REDIS_URL });
      expect(run.code).toBe(1);
      expect(run.stderr.trim()).toMatch(
        /^bootstrap: invalid configuration: ENCRYPTION_KEY: required in production .*; HMAC_SECRET: required in production/,
      );
      expect((await other.pool.query('SELECT count(*)::int AS n FROM accounts')).rows[0]).toEqual({ n: 0 });
    } finally {
      await other.drop();
    }
  });
});
