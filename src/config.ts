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
  z.enum(['true', 'false', '1', '0', 'yes', 'no']).default(fallback ? 'true' : 'false').transform((v) => v === 'true' || v === '1' || v === 'yes');
const csv = z.string().default('').transform((v) => v.split(',').map((s) => s.trim()).filter(Boolean));

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
  /** Unset: redis://127.0.0.1:6379 (`npm start` runs redis-server from the PATH there when nothing answers). */
  REDIS_URL: z.string().url().optional(),
  REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9_.-]+$/).default('gw'),
  S3_ENDPOINT: z.string().url().optional(),
  S3_REGION: z.string().default('us-east-1'),
  S3_BUCKET: z.string().default('gateway-media'),
  S3_ACCESS_KEY_ID: z.string().default('S3RVER'),
  S3_SECRET_ACCESS_KEY: z.string().default('S3RVER'),
  EMBEDDED_S3_PORT: integer(4569),
  EMBEDDED_S3_DIR: z.string().default('.local/s3'),
  /** 32 bytes as 64 hex characters: AES-256-GCM key for key secrets and upstream credentials. */
  ENCRYPTION_KEY: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)').optional(),
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
  IDEMPOTENCY_TTL_SECONDS: z.coerce.number().int().positive().default(24 * 3600),
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
  REQUEST_BODY_MAX_BYTES: z.coerce.number().int().positive().default(64 * 1024),
  /** Extra JSON paths redacted from kept bodies, e.g. `metadata.user_id,tools[].secret`. */
  REQUEST_BODY_REDACT_PATHS: csv,
});

/** Every environment variable the gateway reads (documented one by one in .env.example). */
export const CONFIG_VARIABLES: readonly string[] = Object.keys(schema.shape);

export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  databaseUrl: string;
  /** Whether DATABASE_URL / REDIS_URL were set (the quick start only starts local services for defaults). */
  explicit: { databaseUrl: boolean; redisUrl: boolean };
  embeddedPostgresDir: string;
  databasePoolSize: number;
  redisUrl: string;
  redisPrefix: string;
  s3: { endpoint?: string; region: string; bucket: string; accessKeyId: string; secretAccessKey: string; embeddedPort: number; embeddedDir: string };
  encryptionKey: Buffer;
  hmacSecret: string;
  logLevel: string;
  trustedProxies: string[];
  bootstrapApiKey?: string;
  bootstrapOperator: { email: string; password?: string };
  secretsFile: string;
  consoleDemo: { email: string; password?: string };
  sim: { port: number; apiKey: string; baseUrl?: string };
  upstream: { connectTimeoutMs: number; firstByteTimeoutMs: number; idleTimeoutMs: number; cooldownMs: number; maxAttempts: number; connections: number };
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
  webhooks: { allowPrivate: boolean; timeoutMs: number; maxAttempts: number; backoffMs: number };
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

interface StoredSecrets { encryptionKey: string; hmacSecret: string }

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

/** Loads and validates configuration; throws ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means unset (docker compose passes `${X:-}` through as '').
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  }
  const e = parsed.data;
  const warnings: string[] = [];
  let encryptionKey = e.ENCRYPTION_KEY;
  let hmacSecret = e.HMAC_SECRET;
  if (encryptionKey === undefined || hmacSecret === undefined) {
    if (e.NODE_ENV === 'production') {
      const missing = [encryptionKey === undefined ? 'ENCRYPTION_KEY' : '', hmacSecret === undefined ? 'HMAC_SECRET' : ''].filter(Boolean);
      throw new ConfigError(missing.map((name) => `${name}: required in production (${name === 'ENCRYPTION_KEY' ? '64 hex characters: openssl rand -hex 32' : 'at least 32 characters: openssl rand -hex 32'}; see .env.example)`));
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
    explicit: { databaseUrl: e.DATABASE_URL !== undefined, redisUrl: e.REDIS_URL !== undefined },
    embeddedPostgresDir: e.EMBEDDED_POSTGRES_DIR,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redisUrl: e.REDIS_URL ?? 'redis://127.0.0.1:6379',
    redisPrefix: e.REDIS_PREFIX,
    s3: {
      endpoint: e.S3_ENDPOINT, region: e.S3_REGION, bucket: e.S3_BUCKET, accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY, embeddedPort: e.EMBEDDED_S3_PORT, embeddedDir: e.EMBEDDED_S3_DIR,
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
      connectTimeoutMs: e.UPSTREAM_CONNECT_TIMEOUT_MS, firstByteTimeoutMs: e.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      idleTimeoutMs: e.UPSTREAM_IDLE_TIMEOUT_MS, cooldownMs: e.UPSTREAM_COOLDOWN_MS, maxAttempts: e.UPSTREAM_MAX_ATTEMPTS,
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
    worker: { queues: e.WORKER_QUEUES.length > 0 ? e.WORKER_QUEUES : ['tasks', 'billing', 'maintenance', 'webhooks'], concurrency: e.WORKER_CONCURRENCY },
    webhooks: { allowPrivate: e.WEBHOOK_ALLOW_PRIVATE, timeoutMs: e.WEBHOOK_TIMEOUT_MS, maxAttempts: e.WEBHOOK_MAX_ATTEMPTS, backoffMs: e.WEBHOOK_BACKOFF_MS },
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
