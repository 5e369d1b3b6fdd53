/**
 * `npm start`, the quick start: applies migrations, builds the web console when its sources changed,
 * starts the embedded S3 server (when no S3 endpoint is configured), the provider simulator, one API
 * process and one worker process, bootstraps an empty database (with a demo console login, an
 * operator of the local install), and prints a banner with the base URL, the console URL and login,
 * the bootstrap key and one example call per protocol. Ctrl-C or SIGTERM stops all of them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createSecretCrypto } from '../src/auth/secret-crypto';
import { Catalog } from '../src/catalog/catalog';
import { DEFAULT_CATALOG } from '../src/catalog/default-catalog';
import { ConfigError, loadConfig, type RedisTarget } from '../src/config';
import { bootstrap } from '../src/process/bootstrap';
import { ensureDatabase, migrate } from '../src/db/migrate';
import { createPool } from '../src/db/pool';
import { createConsoleUser } from '../src/process/seed';
import { ensureConsoleBuilt } from './build-console';
import { createRedis } from '../src/redis/connection';
import { describeRedisTarget, redactUrl } from '../src/process/build-dependencies';
import { startEmbeddedS3, type EmbeddedS3 } from '../src/storage/embedded-s3';

const ROOT = path.resolve(__dirname, '..');
const children: ChildProcess[] = [];
let embeddedS3: EmbeddedS3 | undefined;
let stopping = false;

/** The quick start's console login; override with CONSOLE_DEMO_EMAIL / CONSOLE_DEMO_PASSWORD. */
const DEMO_EMAIL = process.env.CONSOLE_DEMO_EMAIL ?? 'demo@gateway.local';
const DEMO_PASSWORD = process.env.CONSOLE_DEMO_PASSWORD ?? 'demo-console-password';

function fail(message: string): never {
  console.error(message);
  void stop(1);
  throw new Error(message);
}

function run(name: string, script: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script)], { cwd: ROOT, env, stdio: ['ignore', 'inherit', 'inherit'] });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} exited (${signal ?? code}); stopping everything`);
      void stop(1);
    }
  });
  children.push(child);
  return child;
}

async function stop(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => { child.kill('SIGKILL'); resolve(); }, 5_000);
    child.once('exit', () => { clearTimeout(timer); resolve(); });
  })));
  await embeddedS3?.close().catch(() => undefined);
  process.exit(code);
}

async function waitFor(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return true;
    } catch { /* not up yet */ }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

async function reachable(databaseUrl: string, redisTarget: RedisTarget): Promise<void> {
  try {
    await ensureDatabase(databaseUrl);
  } catch (error) {
    fail(`PostgreSQL is not reachable at ${redactUrl(databaseUrl)} (${(error as Error).message}). Start it: docker compose up -d postgres redis`);
  }
  const redis = createRedis(redisTarget);
  try {
    await Promise.race([redis.ping(), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer in 3 s')), 3_000))]);
  } catch (error) {
    fail(`Redis is not reachable at ${describeRedisTarget(redisTarget)} (${(error as Error).message}). Start it: docker compose up -d postgres redis`);
  } finally {
    redis.disconnect();
  }
}

async function main(): Promise<void> {
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  for (const warning of config.warnings) console.warn(`warning: ${warning}`);
  await reachable(config.databaseUrl, config.redis);
  await migrate(config.databaseUrl);
  const consoleBuild = await ensureConsoleBuilt().catch((error: Error) => fail(`the web console did not build: ${error.message}`));
  if (consoleBuild === 'built') console.log('web console built (console/dist)');

  const env: NodeJS.ProcessEnv = { ...process.env, SECRETS_FILE: path.resolve(ROOT, process.env.SECRETS_FILE ?? '.local/secrets.json') };
  if (!config.s3.endpoint) {
    embeddedS3 = await startEmbeddedS3({ port: config.s3.embeddedPort, directory: path.resolve(ROOT, config.s3.embeddedDir) });
    env.S3_ENDPOINT = embeddedS3.endpoint;
  }
  const simulatorUrl = config.sim.baseUrl ?? `http://127.0.0.1:${config.sim.port}`;
  if (!config.sim.baseUrl) {
    run('simulator', 'scripts/provider-sim/main.ts', env);
    if (!(await waitFor(`${simulatorUrl}/_sim/requests`, 30_000))) fail('the provider simulator did not start');
  }

  const db = createPool(config.databaseUrl, 2);
  const crypto = createSecretCrypto(config.encryptionKey, config.hmacSecret);
  const boot = await bootstrap(db, crypto, new Catalog(DEFAULT_CATALOG), { simulatorUrl, simulatorKey: config.sim.apiKey, apiKey: config.bootstrapApiKey });
  // The operator's own machine: show the bootstrap key again on later starts (decrypted from its reveal ciphertext).
  const keyRow = await db.query<{ secret_encrypted: string }>("SELECT secret_encrypted FROM api_keys WHERE name = 'bootstrap' ORDER BY id LIMIT 1");
  const key = boot.key ?? (keyRow.rows[0] ? crypto.decrypt(keyRow.rows[0].secret_encrypted) : '(no bootstrap key: create one with npm run admin -- key create)');
  const demoLogin = await ensureDemoConsoleUser(db);
  await db.end();

  run('api', 'src/server.ts', env);
  run('worker', 'workers/index.ts', env);
  const base = `http://127.0.0.1:${config.port}`;
  if (!(await waitFor(`${base}/readyz`, 60_000))) fail('the API did not become ready within 60 s');

  console.log(`
  Gateway ready at ${base}   (provider simulator at ${simulatorUrl}${embeddedS3 ? `, embedded S3 at ${embeddedS3.endpoint}` : ''})
  Console: ${base}/console   ${demoLogin}
  ${boot.created ? 'Bootstrap key (created now)' : 'Bootstrap key'}: ${key}

  curl -s ${base}/v1/models -H "Authorization: Bearer ${key}"
  curl -s ${base}/v1/messages -H "x-api-key: ${key}" -H "anthropic-version: 2023-06-01" -H "content-type: application/json" \\
       -d '{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hello"}]}'
  curl -s ${base}/v1/chat/completions -H "Authorization: Bearer ${key}" -H "content-type: application/json" \\
       -d '{"model":"gpt-4.1","messages":[{"role":"user","content":"Hello"}]}'
  curl -s ${base}/v1/responses -H "Authorization: Bearer ${key}" -H "content-type: application/json" \\
       -d '{"model":"gpt-5","input":"Hello"}'
  curl -s "${base}/v1beta/models/gemini-2.5-flash:generateContent?key=${key}" -H "content-type: application/json" \\
       -d '{"contents":[{"role":"user","parts":[{"text":"Hello"}]}]}'

  Ctrl-C stops everything.
`);
}

/**
 * The demo console login on the bootstrap key's account, as an operator of this local install;
 * created once (an existing user with that email is left as it is, its password unknown here).
 */
async function ensureDemoConsoleUser(db: ReturnType<typeof createPool>): Promise<string> {
  const existing = await db.query('SELECT 1 FROM console_users WHERE email = $1', [DEMO_EMAIL.toLowerCase()]);
  if (existing.rowCount) return `login ${DEMO_EMAIL} / ${DEMO_PASSWORD} (unless its password was changed)`;
  const account = await db.query<{ account_id: number }>("SELECT account_id FROM api_keys WHERE name = 'bootstrap' ORDER BY id LIMIT 1");
  if (!account.rows[0]) return '(no demo login: create one with npm run admin -- user create)';
  const userId = await createConsoleUser(db, { accountId: Number(account.rows[0].account_id), email: DEMO_EMAIL, password: DEMO_PASSWORD });
  await db.query("UPDATE console_users SET role = 'operator' WHERE id = $1", [userId]);
  return `login ${DEMO_EMAIL} / ${DEMO_PASSWORD} (operator of this install)`;
}

main().catch((error: Error) => {
  if (!stopping) {
    console.error(`start failed: ${error.message}`);
    void stop(1);
  }
});
