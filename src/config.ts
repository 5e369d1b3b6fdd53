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
  HOST: z.string().default('0.0.0.0'),
  PORT: integer(8080),
  DATABASE_URL: z.string().url().default('postgres://postgres@127.0.0.1:5432/gateway'),
  DATABASE_POOL_SIZE: integer(10),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
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
  MAX_BODY_BYTES: integer(20 * 1024 * 1024),
  /** Admission reserves input (estimated from the body) + min(max_tokens, this) output tokens. */
  RESERVATION_MAX_OUTPUT_TOKENS: integer(4_096),
  KEY_CACHE_TTL_MS: integer(10_000),
  LEASE_TTL_MS: integer(60_000),
  IMAGE_FETCH_ALLOW_PRIVATE: bool(false),
  IMAGE_FETCH_MAX_BYTES: integer(10 * 1024 * 1024),
  IMAGE_FETCH_TIMEOUT_MS: integer(10_000),
  WORKER_QUEUES: csv,
  WORKER_CONCURRENCY: integer(8),
  TASK_DEADLINE_MS: integer(15 * 60_000),
  /** A usage event a billing worker took but did not settle (it died, or PostgreSQL failed) is claimed again after this idle time. */
  BILLING_CLAIM_IDLE_MS: integer(30_000),
  /** After a read that did not fill a batch, how long a billing worker waits for more events before writing them (one transaction each batch). */
  BILLING_LINGER_MS: integer(50),
  SECRETS_FILE: z.string().default('.local/secrets.json'),
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

export interface Config {
  env: 'development' | 'production' | 'test';
  host: string;
  port: number;
  databaseUrl: string;
  databasePoolSize: number;
  redisUrl: string;
  redisPrefix: string;
  s3: { endpoint?: string; region: string; bucket: string; accessKeyId: string; secretAccessKey: string; embeddedPort: number; embeddedDir: string };
  encryptionKey: Buffer;
  hmacSecret: string;
  logLevel: string;
  trustedProxies: string[];
  bootstrapApiKey?: string;
  sim: { port: number; apiKey: string; baseUrl?: string };
  upstream: { connectTimeoutMs: number; firstByteTimeoutMs: number; idleTimeoutMs: number; cooldownMs: number; maxAttempts: number; connections: number };
  streamKeepaliveMs: number;
  maxBodyBytes: number;
  reservationMaxOutputTokens: number;
  keyCacheTtlMs: number;
  leaseTtlMs: number;
  imageFetch: { allowPrivate: boolean; maxBytes: number; timeoutMs: number };
  worker: { queues: string[]; concurrency: number };
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
      throw new ConfigError(missing.map((name) => `${name}: required in production`));
    }
    const secrets = developmentSecrets(e.SECRETS_FILE, warnings);
    encryptionKey ??= secrets.encryptionKey;
    hmacSecret ??= secrets.hmacSecret;
  }
  return {
    env: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    redisUrl: e.REDIS_URL,
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
    sim: { port: e.SIM_PORT, apiKey: e.SIM_API_KEY, baseUrl: e.SIM_BASE_URL },
    upstream: {
      connectTimeoutMs: e.UPSTREAM_CONNECT_TIMEOUT_MS, firstByteTimeoutMs: e.UPSTREAM_FIRST_BYTE_TIMEOUT_MS,
      idleTimeoutMs: e.UPSTREAM_IDLE_TIMEOUT_MS, cooldownMs: e.UPSTREAM_COOLDOWN_MS, maxAttempts: e.UPSTREAM_MAX_ATTEMPTS,
      connections: e.UPSTREAM_MAX_CONNECTIONS,
    },
    streamKeepaliveMs: e.STREAM_KEEPALIVE_MS,
    maxBodyBytes: e.MAX_BODY_BYTES,
    reservationMaxOutputTokens: e.RESERVATION_MAX_OUTPUT_TOKENS,
    keyCacheTtlMs: e.KEY_CACHE_TTL_MS,
    leaseTtlMs: e.LEASE_TTL_MS,
    imageFetch: { allowPrivate: e.IMAGE_FETCH_ALLOW_PRIVATE, maxBytes: e.IMAGE_FETCH_MAX_BYTES, timeoutMs: e.IMAGE_FETCH_TIMEOUT_MS },
    worker: { queues: e.WORKER_QUEUES.length > 0 ? e.WORKER_QUEUES : ['tasks', 'billing', 'maintenance'], concurrency: e.WORKER_CONCURRENCY },
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
