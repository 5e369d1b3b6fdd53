/**
 * Environment → typed configuration, validated with zod. The only reader of process.env.
 * Secrets unset in development are generated once and kept in `.local/secrets.json` (ignored by git);
 * in production they are required.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const integer = (fallback: number) => z.coerce.number().int().nonnegative().default(fallback);
const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1' || v === 'yes');
const csv = z
  .string()
  .default('')
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
  );

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  /** The API's listen address: loopback unless told otherwise (the image sets 0.0.0.0). */
  HOST: z.string().default('127.0.0.1'),
  PORT: integer(8080),
  /** Unset: postgres://postgres:postgres@127.0.0.1:POSTGRES_PORT/gateway, which `docker compose up -d postgres redis` serves. */
  DATABASE_URL: z.string().url().optional(),
  /** The port of the default DATABASE_URL (and of the embedded PostgreSQL `npm start` runs there when nothing answers). */
  POSTGRES_PORT: z.coerce.number().int().min(1).max(65_535).default(5432),
  /** Where the quick start's embedded PostgreSQL keeps its data. */
  EMBEDDED_POSTGRES_DIR: z.string().default('.local/postgres'),
  DATABASE_POOL_SIZE: integer(10),
  /** Optional: a read replica for the console's aggregates and listings (usage, daily usage, key windows, exports, the request log). */
  DATABASE_READ_URL: z
    .string()
    .refine((url) => /^postgres(ql)?:\/\//.test(url) && URL.canParse(url), 'must be a postgres:// or postgresql:// URL')
    .optional(),
  /** One Redis server (default redis://127.0.0.1:6379, where `npm start` runs redis-server from the PATH when nothing answers). Set only one of REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES. */
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  /** Redis behind Sentinel: the sentinels as `host:port,…` (`rediss://host:port` for TLS), with REDIS_SENTINEL_NAME. */
  REDIS_SENTINELS: z.string().optional(),
  REDIS_SENTINEL_NAME: z.string().optional(),
  /** The sentinels' own password (`requirepass` of sentinel.conf), when they have one. */
  REDIS_SENTINEL_PASSWORD: z.string().optional(),
  /** Redis Cluster: some of its nodes as `host:port,…` (`rediss://host:port` for TLS); the rest are discovered. */
  REDIS_CLUSTER_NODES: z.string().optional(),
  /** Credentials of the Redis data nodes under Sentinel or Cluster (a REDIS_URL carries its own). */
  REDIS_USERNAME: z.string().optional(),
  REDIS_PASSWORD: z.string().optional(),
  REDIS_PREFIX: z
    .string()
    .regex(/^[A-Za-z0-9_.-]+$/)
    .default('gw'),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_BUCKET: z.string().default('gateway-media'),
  S3_ACCESS_KEY_ID: z.string().default('S3RVER'),
  S3_SECRET_ACCESS_KEY: z.string().default('S3RVER'),
  EMBEDDED_S3_PORT: integer(4569),
  EMBEDDED_S3_DIR: z.string().default('.local/s3'),
  /** 32 bytes as 64 hex characters: AES-256-GCM key for key secrets and upstream credentials. */
  ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
    .optional(),
  /** HMAC-SHA256 secret for key lookup: at least 32 characters. */
  HMAC_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  TRUSTED_PROXIES: csv,
  BOOTSTRAP_API_KEY: z.string().optional(),
  /** The first operator login `scripts/bootstrap.ts` creates (the compose stack's bootstrap service). */
  BOOTSTRAP_OPERATOR_EMAIL: z.string().email().default('operator@gateway.local'),
  BOOTSTRAP_OPERATOR_PASSWORD: z.string().min(12, 'must be at least 12 characters').optional(),
  SIM_PORT: integer(4100),
  SIM_API_KEY: z.string().default('sim-key'),
  /** Where the bootstrap points the upstream accounts; defaults to the local simulator. */
  SIM_BASE_URL: z.string().url().optional(),
  UPSTREAM_CONNECT_TIMEOUT_MS: integer(5_000),
  UPSTREAM_FIRST_BYTE_TIMEOUT_MS: integer(60_000),
  UPSTREAM_IDLE_TIMEOUT_MS: integer(60_000),
  UPSTREAM_COOLDOWN_MS: integer(30_000),
  UPSTREAM_MAX_ATTEMPTS: integer(3),
  /** Keep-alive connections per upstream origin (each open stream holds one). */
  UPSTREAM_MAX_CONNECTIONS: integer(4096),
  STREAM_KEEPALIVE_MS: integer(15_000),
  /** A Responses WebSocket with no message and no response in flight for this long is closed. */
  RESPONSES_WS_IDLE_MS: integer(10 * 60_000),
  /** Issue 24: trace one request in N by phase (wall and CPU time), read at GET /internal/trace; 0 = off. */
  GATEWAY_TRACE_SAMPLE: integer(0),
  MAX_BODY_BYTES: integer(20 * 1024 * 1024),
  /** Admission reserves input (estimated from the body) + min(max_tokens, this) output tokens. */
  RESERVATION_MAX_OUTPUT_TOKENS: integer(4_096),
  KEY_CACHE_TTL_MS: integer(10_000),
  LEASE_TTL_MS: integer(60_000),
  IMAGE_FETCH_ALLOW_PRIVATE: bool(false),
  IMAGE_FETCH_MAX_BYTES: integer(10 * 1024 * 1024),
  IMAGE_FETCH_TIMEOUT_MS: integer(10_000),
  /** Webhooks may point at private or loopback addresses (development, tests); off by default, like image URLs. */
  WEBHOOK_ALLOW_PRIVATE: bool(false),
  WEBHOOK_TIMEOUT_MS: integer(10_000),
  /** Attempts per webhook delivery (the first included), spaced by exponential backoff from WEBHOOK_BACKOFF_MS. */
  WEBHOOK_MAX_ATTEMPTS: integer(8),
  WEBHOOK_BACKOFF_MS: integer(10_000),
  /** Days the webhook delivery log is kept (settled deliveries older than this are removed by the maintenance worker). */
  WEBHOOK_DELIVERIES_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
  /** How often the workers evaluate the alert rules. */
  ALERT_EVALUATE_EVERY_MS: z.coerce.number().int().min(1_000).default(30_000),
  WORKER_QUEUES: csv,
  WORKER_CONCURRENCY: integer(8),
  TASK_DEADLINE_MS: integer(15 * 60_000),
  /** A usage event a billing worker took but did not settle (it died, or PostgreSQL failed) is claimed again after this idle time. */
  BILLING_CLAIM_IDLE_MS: integer(30_000),
  /** After a read that did not fill a batch, how long a billing worker waits for more events before writing them (one transaction each batch). */
  BILLING_LINGER_MS: integer(50),
  SECRETS_FILE: z.string().default('.local/secrets.json'),
  /** The quick start's console login (an operator of the local install); the password is generated per install (beside SECRETS_FILE) unless set. */
  CONSOLE_DEMO_EMAIL: z.string().email().default('demo@gateway.local'),
  CONSOLE_DEMO_PASSWORD: z.string().min(8, 'must be at least 8 characters').optional(),
  /** How long an Idempotency-Key's answer is kept and replayed (docs/tasks.md). */
  IDEMPOTENCY_TTL_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(24 * 3600),
  /** Session affinity for prompt caching: a conversation's account is kept this long after its last request; 0 turns it off. */
  SESSION_AFFINITY_TTL_SECONDS: integer(300),
  /** On SIGTERM, how long running requests and streams may take to finish before they are cut. */
  SHUTDOWN_GRACE_MS: integer(30_000),
  /** Browser origins allowed to call the API (CORS), e.g. `https://app.example.com`; `*` allows any (never with credentials). */
  CORS_ALLOWED_ORIGINS: csv,
  /** The request log (issue 22): every authenticated request recorded; false turns recording off. */
  REQUEST_LOG_ENABLED: bool(true),
  /** Days request records are kept (whole day partitions are dropped after it). */
  REQUEST_LOG_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
  /** Days kept request and response bodies are kept. */
  REQUEST_BODIES_RETENTION_DAYS: z.coerce.number().int().positive().default(7),
  /** Days routing decision chains are kept. */
  ROUTING_DECISIONS_RETENTION_DAYS: z.coerce.number().int().positive().default(30),
  /** Kept bodies are cut past this many bytes each (request, response). */
  REQUEST_BODY_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(64 * 1024),
  /** Extra JSON paths redacted from kept bodies, e.g. `metadata.user_id,tools[].secret`. */
  REQUEST_BODY_REDACT_PATHS: csv,
});

/** Every environment variable the gateway reads (documented one by one in .env.example). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.shape);

export interface RedisNode {
  host: string;
  port: number;
}

/** Where Redis is: one server, a primary found through Sentinel, or a cluster (docs/operations.md). */
export type RedisTarget =
  | { kind: 'server'; url: string }
  | {
      kind: 'sentinel';
      sentinels: RedisNode[];
      name: string;
      sentinelPassword?: string;
      username?: string;
      password?: string;
      tls: boolean;
    }
  | { kind: 'cluster'; nodes: RedisNode[]; username?: string; password?: string; tls: boolean };

export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  databaseUrl: string;
  /** A read replica for console aggregates and listings; unset: the primary serves them. */
  databaseReadUrl?: string;
  /** Whether DATABASE_URL / REDIS_URL were set (the quick start only starts local services for defaults). */
  explicit: { databaseUrl: boolean; redisUrl: boolean };
  embeddedPostgresDir: string;
  databasePoolSize: number;
  redis: RedisTarget;
  redisPrefix: string;
  s3: {
    endpoint?: string;
    region: string;
    bucket: string;
    accessKeyId: string;
    secretAccessKey: string;
    embeddedPort: number;
    embeddedDir: string;
  };
  encryptionKey: Buffer;
  hmacSecret: string;
  logLevel: string;
  trustedProxies: string[];
  bootstrapApiKey?: string;
  bootstrapOperator: { email: string; password?: string };
  secretsFile: string;
  consoleDemo: { email: string; password?: string };
  sim: { port: number; apiKey: string; baseUrl?: string };
  upstream: {
    connectTimeoutMs: number;
    firstByteTimeoutMs: number;
    idleTimeoutMs: number;
    cooldownMs: number;
    maxAttempts: number;
    connections: number;
  };
  streamKeepaliveMs: number;
  responsesWebSocketIdleMs: number;
  /** Issue 24: one request in N is traced by phase (0 = off). */
  traceSample: number;
  maxBodyBytes: number;
  reservationMaxOutputTokens: number;
  keyCacheTtlMs: number;
  leaseTtlMs: number;
  imageFetch: { allowPrivate: boolean; maxBytes: number; timeoutMs: number };
  worker: { queues: string[]; concurrency: number };
  webhooks: { allowPrivate: boolean; timeoutMs: number; maxAttempts: number; backoffMs: number; deliveriesRetentionDays: number };
  alertEvaluateEveryMs: number;
  taskDeadlineMs: number;
  billingClaimIdleMs: number;
  billingLingerMs: number;
  idempotencyTtlMs: number;
  /** 0: no session affinity. */
  sessionAffinityTtlMs: number;
  shutdownGraceMs: number;
  corsAllowedOrigins: string[];
  requestLog: {
    enabled: boolean;
    retentionDays: number;
    bodiesRetentionDays: number;
    routingDecisionsRetentionDays: number;
    bodyMaxBytes: number;
    redactPaths: string[];
  };
  /** Warnings produced while loading (e.g. generated development secrets). */
  warnings: string[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration: ${problems.join('; ')}`);
    this.name = 'ConfigError';
  }
}

interface StoredSecrets {
  encryptionKey: string;
  hmacSecret: string;
}

function developmentSecrets(file: string, warnings: string[]): StoredSecrets {
  const full = path.resolve(file);
  if (existsSync(full)) {
    const stored = JSON.parse(readFileSync(full, 'utf8')) as Partial<StoredSecrets>;
    if (stored.encryptionKey && stored.hmacSecret) return { encryptionKey: stored.encryptionKey, hmacSecret: stored.hmacSecret };
  }
  const secrets = { encryptionKey: randomBytes(32).toString('hex'), hmacSecret: randomBytes(32).toString('hex') };
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  warnings.push(`ENCRYPTION_KEY/HMAC_SECRET unset: generated development secrets in ${file} (set both in production)`);
  return secrets;
}

/** `host:port,…` (each optionally `redis://` or `rediss://`); every entry must use the same scheme. */
function parseRedisNodes(variable: string, value: string, problems: string[]): { nodes: RedisNode[]; tls: boolean } {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  const schemes = new Set<string>();
  const nodes: RedisNode[] = [];
  for (const entry of entries) {
    const match = /^(?:(rediss?):\/\/)?([^\s:/@]+|\[[0-9a-fA-F:]+\]):(\d{1,5})\/?$/.exec(entry);
    const port = Number(match?.[3]);
    if (!match || port < 1 || port > 65535) {
      problems.push(`${variable}: "${entry}" is not host:port (or redis[s]://host:port)`);
      continue;
    }
    schemes.add(match[1] ?? 'redis');
    nodes.push({ host: match[2]!.replace(/^\[|\]$/g, ''), port });
  }
  if (entries.length === 0) problems.push(`${variable}: lists no host:port`);
  if (schemes.size > 1) problems.push(`${variable}: mixes redis:// and rediss:// nodes; use one scheme`);
  return { nodes, tls: schemes.has('rediss') };
}

type RedisEnv = Pick<
  z.infer<typeof schema>,
  | 'REDIS_URL'
  | 'REDIS_SENTINELS'
  | 'REDIS_SENTINEL_NAME'
  | 'REDIS_SENTINEL_PASSWORD'
  | 'REDIS_CLUSTER_NODES'
  | 'REDIS_USERNAME'
  | 'REDIS_PASSWORD'
>;

/** The Redis topology; `urlGiven`: REDIS_URL was set (not defaulted). Throws ConfigError naming the variable. */
function redisTarget(e: RedisEnv, urlGiven: boolean): RedisTarget {
  const chosen = [
    urlGiven && 'REDIS_URL',
    e.REDIS_SENTINELS !== undefined && 'REDIS_SENTINELS',
    e.REDIS_CLUSTER_NODES !== undefined && 'REDIS_CLUSTER_NODES',
  ].filter(Boolean);
  if (chosen.length > 1)
    throw new ConfigError([
      `${chosen[1]}: set only one of REDIS_URL, REDIS_SENTINELS, REDIS_CLUSTER_NODES (found ${chosen.join(' and ')})`,
    ]);
  const problems: string[] = [];
  const auth = { username: e.REDIS_USERNAME, password: e.REDIS_PASSWORD };
  let target: RedisTarget = { kind: 'server', url: e.REDIS_URL };
  if (e.REDIS_SENTINELS !== undefined) {
    const { nodes, tls } = parseRedisNodes('REDIS_SENTINELS', e.REDIS_SENTINELS, problems);
    if (e.REDIS_SENTINEL_NAME === undefined)
      problems.push('REDIS_SENTINEL_NAME: required with REDIS_SENTINELS (the name of the monitored primary)');
    target = {
      kind: 'sentinel',
      sentinels: nodes,
      name: e.REDIS_SENTINEL_NAME ?? '',
      sentinelPassword: e.REDIS_SENTINEL_PASSWORD,
      ...auth,
      tls,
    };
  } else if (e.REDIS_CLUSTER_NODES !== undefined) {
    const { nodes, tls } = parseRedisNodes('REDIS_CLUSTER_NODES', e.REDIS_CLUSTER_NODES, problems);
    target = { kind: 'cluster', nodes, ...auth, tls };
  } else {
    for (const name of ['REDIS_SENTINEL_NAME', 'REDIS_SENTINEL_PASSWORD', 'REDIS_USERNAME', 'REDIS_PASSWORD'] as const) {
      if (e[name] !== undefined)
        problems.push(`${name}: only used with REDIS_SENTINELS or REDIS_CLUSTER_NODES (put a single server's credentials in REDIS_URL)`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return target;
}

/** Loads and validates configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means unset (docker compose passes `${X:-}` through as '').
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const e = parsed.data;
  const redis = redisTarget(e, present.REDIS_URL !== undefined);
  const warnings: string[] = [];
  let encryptionKey = e.ENCRYPTION_KEY;
  let hmacSecret = e.HMAC_SECRET;
  if (encryptionKey === undefined || hmacSecret === undefined) {
    if (e.NODE_ENV === 'production') {
      const missing = [encryptionKey === undefined ? 'ENCRYPTION_KEY' : '', hmacSecret === undefined ? 'HMAC_SECRET' : ''].filter(Boolean);
      throw new ConfigError(
        missing.map(
          (name) =>
            `${name}: required in production (${name === 'ENCRYPTION_KEY' ? '64 hex characters: openssl rand -hex 32' : 'at least 32 characters: openssl rand -hex 32'}; see .env.example)`,
        ),
      );
    }
    const secrets = developmentSecrets(e.SECRETS_FILE, warnings);
    encryptionKey ??= secrets.encryptionKey;
    hmacSecret ??= secrets.hmacSecret;
  }
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL ?? `postgres://postgres:postgres@127.0.0.1:${e.POSTGRES_PORT}/gateway`,
    databaseReadUrl: e.DATABASE_READ_URL,
    explicit: { databaseUrl: e.DATABASE_URL !== undefined, redisUrl: present.REDIS_URL !== undefined || redis.kind !== 'server' },
    embeddedPostgresDir: e.EMBEDDED_POSTGRES_DIR,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redis,
    redisPrefix: e.REDIS_PREFIX,
    s3: {
      endpoint: e.S3_ENDPOINT,
      region: e.S3_REGION,
      bucket: e.S3_BUCKET,
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
      embeddedPort: e.EMBEDDED_S3_PORT,
      embeddedDir: e.EMBEDDED_S3_DIR,
    },
    encryptionKey: Buffer.from(encryptionKey, 'hex'),
    hmacSecret,
    logLevel: e.LOG_LEVEL,
    trustedProxies: e.TRUSTED_PROXIES,
    bootstrapApiKey: e.BOOTSTRAP_API_KEY,
    bootstrapOperator: { email: e.BOOTSTRAP_OPERATOR_EMAIL, password: e.BOOTSTRAP_OPERATOR_PASSWORD },
    secretsFile: e.SECRETS_FILE,
    consoleDemo: { email: e.CONSOLE_DEMO_EMAIL, password: e.CONSOLE_DEMO_PASSWORD },
    sim: { port: e.SIM_PORT, apiKey: e.SIM_API_KEY, baseUrl: e.SIM_BASE_URL },
    upstream: {
      connectTimeoutMs: e.UPSTREAM_CONNECT_TIMEOUT_MS,
      firstByteTimeoutMs: e.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      idleTimeoutMs: e.UPSTREAM_IDLE_TIMEOUT_MS,
      cooldownMs: e.UPSTREAM_COOLDOWN_MS,
      maxAttempts: e.UPSTREAM_MAX_ATTEMPTS,
      connections: e.UPSTREAM_MAX_CONNECTIONS,
    },
    streamKeepaliveMs: e.STREAM_KEEPALIVE_MS,
    responsesWebSocketIdleMs: e.RESPONSES_WS_IDLE_MS,
    traceSample: e.GATEWAY_TRACE_SAMPLE,
    maxBodyBytes: e.MAX_BODY_BYTES,
    reservationMaxOutputTokens: e.RESERVATION_MAX_OUTPUT_TOKENS,
    keyCacheTtlMs: e.KEY_CACHE_TTL_MS,
    leaseTtlMs: e.LEASE_TTL_MS,
    imageFetch: { allowPrivate: e.IMAGE_FETCH_ALLOW_PRIVATE, maxBytes: e.IMAGE_FETCH_MAX_BYTES, timeoutMs: e.IMAGE_FETCH_TIMEOUT_MS },
    worker: {
      queues: e.WORKER_QUEUES.length > 0 ? e.WORKER_QUEUES : ['tasks', 'billing', 'maintenance', 'webhooks'],
      concurrency: e.WORKER_CONCURRENCY,
    },
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxAttempts: e.WEBHOOK_MAX_ATTEMPTS,
      backoffMs: e.WEBHOOK_BACKOFF_MS,
      deliveriesRetentionDays: e.WEBHOOK_DELIVERIES_RETENTION_DAYS,
    },
    alertEvaluateEveryMs: e.ALERT_EVALUATE_EVERY_MS,
    taskDeadlineMs: e.TASK_DEADLINE_MS,
    billingClaimIdleMs: e.BILLING_CLAIM_IDLE_MS,
    billingLingerMs: e.BILLING_LINGER_MS,
    idempotencyTtlMs: e.IDEMPOTENCY_TTL_SECONDS * 1000,
    sessionAffinityTtlMs: e.SESSION_AFFINITY_TTL_SECONDS * 1000,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    corsAllowedOrigins: e.CORS_ALLOWED_ORIGINS,
    requestLog: {
      enabled: e.REQUEST_LOG_ENABLED,
      retentionDays: e.REQUEST_LOG_RETENTION_DAYS,
      bodiesRetentionDays: e.REQUEST_BODIES_RETENTION_DAYS,
      routingDecisionsRetentionDays: e.ROUTING_DECISIONS_RETENTION_DAYS,
      bodyMaxBytes: e.REQUEST_BODY_MAX_BYTES,
      redactPaths: e.REQUEST_BODY_REDACT_PATHS,
    },
    warnings,
  };
}
