/**
 * `npm start`, the quick start: finds PostgreSQL and Redis (or, for the default addresses, starts an
 * embedded PostgreSQL and redis-server when nothing answers there: local-services.ts), applies migrations, builds the web console when its sources changed,
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
import { ConfigError, loadConfig, type Config } from '../src/config';
import { ensurePostgres, ensureRedis, LocalServiceError, type LocalService } from '../src/process/local-services';
import { bootstrap } from '../src/process/bootstrap';
import { migrate } from '../src/db/migrate';
import { createPool } from '../src/db/pool';
import { findBootstrapKey } from '../src/db/repositories/api-keys';
import { ensureDemoLogin } from '../src/process/demo-login';
import { ensureConsoleBuilt } from './build-console';
import { describeRedisTarget, redactUrl } from '../src/process/build-dependencies';
import { startEmbeddedS3, type EmbeddedS3 } from '../src/storage/embedded-s3';

const ROOT = path.resolve(__dirname, '..');
const children: ChildProcess[] = [];
let embeddedS3: EmbeddedS3 | undefined;
/** The embedded PostgreSQL and redis-server this run started; stopped after the gateway's processes. */
const localServices: LocalService[] = [];
let stopping = false;

function fail(message: string): never {
  console.error(message);
  void stop(1);
  throw new Error(message);
}

function run(name: string, script: string, env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, script)], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
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
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => {
            child.kill('SIGKILL');
            resolve();
          }, 5_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
        }),
    ),
  );
  await embeddedS3?.close().catch(() => undefined);
  for (const service of localServices.reverse()) await service.stop().catch(() => undefined);
  process.exit(code);
}

async function waitFor(url: string, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(url);
      if (response.ok) return true;
    } catch {
      /* not up yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return false;
}

/** PostgreSQL and Redis: the configured ones, or local ones started for the defaults (local-services.ts). */
async function reachable(config: Config): Promise<void> {
  try {
    const postgres = await ensurePostgres(config);
    if (postgres) localServices.push(postgres);
  } catch (error) {
    fail(
      error instanceof LocalServiceError
        ? error.message
        : `PostgreSQL is not reachable at ${redactUrl(config.databaseUrl)} (${(error as Error).message}). Start it: docker compose up -d postgres redis`,
    );
  }
  try {
    const redis = await ensureRedis(config);
    if (redis) localServices.push(redis);
  } catch (error) {
    fail(
      error instanceof LocalServiceError
        ? error.message
        : `Redis is not reachable at ${describeRedisTarget(config.redis)} (${(error as Error).message}). Start it: docker compose up -d postgres redis`,
    );
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
  await reachable(config);
  await migrate(config.databaseUrl);
  const consoleBuild = await ensureConsoleBuilt().catch((error: Error) => fail(`the web console did not build: ${error.message}`));
  if (consoleBuild === 'built') console.log('web console built (console/dist)');

  const env: NodeJS.ProcessEnv = { ...process.env, SECRETS_FILE: path.resolve(ROOT, config.secretsFile) };
  if (!config.s3.endpoint) {
    embeddedS3 = await startEmbeddedS3({
      port: config.s3.embeddedPort,
      directory: path.resolve(ROOT, config.s3.embeddedDir),
      environment: config.env,
    }).catch((error: Error) => fail(error.message));
    env.S3_ENDPOINT = embeddedS3.endpoint;
  }
  const simulatorUrl = config.sim.baseUrl ?? `http://127.0.0.1:${config.sim.port}`;
  if (!config.sim.baseUrl) {
    run('simulator', 'scripts/provider-sim/main.ts', env);
    if (!(await waitFor(`${simulatorUrl}/_sim/requests`, 30_000))) fail('the provider simulator did not start');
  }

  const db = createPool(config.databaseUrl, 2);
  const crypto = createSecretCrypto(config.encryptionKey, config.hmacSecret);
  const boot = await bootstrap(db, crypto, new Catalog(DEFAULT_CATALOG), {
    simulatorUrl,
    simulatorKey: config.sim.apiKey,
    apiKey: config.bootstrapApiKey,
  });
  // The operator's own machine: show the bootstrap key again on later starts (decrypted from its reveal ciphertext).
  const bootstrapKey = await findBootstrapKey(db);
  const key =
    boot.key ??
    (bootstrapKey ? crypto.decrypt(bootstrapKey.secretEncrypted) : '(no bootstrap key: create one with npm run admin -- key create)');
  const demoLogin = await ensureDemoLogin(db, { ...config.consoleDemo, secretsFile: path.resolve(ROOT, config.secretsFile) });
  await db.end();

  run('api', 'src/server.ts', env);
  run('worker', 'workers/index.ts', env);
  const base = `http://${urlHost(config.host)}:${config.port}`;
  if (!(await waitFor(`${base}/readyz`, 60_000))) fail('the API did not become ready within 60 s');

  console.log(`
  Gateway ready at ${base}   ${listenNote(config.host)}
  Upstreams: ${config.sim.baseUrl ? `provider simulator at ${simulatorUrl}` : `the provider simulator at ${simulatorUrl} (simulated answers; connect a provider: npm run admin -- upstream add --help)`}${embeddedS3 ? `; embedded S3 at ${embeddedS3.endpoint}` : ''}${localServices.map((service) => `; ${service.description}`).join('')}
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

/** The host part of a URL that reaches the API from this machine. */
function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

/** What the banner says about who can reach it. */
function listenNote(host: string): string {
  if (host === '0.0.0.0' || host === '::') return `(listening on every interface, HOST=${host}: reachable from other machines)`;
  if (host === '127.0.0.1' || host === 'localhost' || host === '::1') return '(this machine only; HOST=0.0.0.0 opens it to the network)';
  return `(listening on ${host})`;
}

main().catch((error: Error) => {
  if (!stopping) {
    console.error(`start failed: ${error.message}`);
    void stop(1);
  }
});
