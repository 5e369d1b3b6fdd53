/**
 * The admin CLI's frame: a command declares its words, its flags (with their help) and what it runs;
 * flags are checked against the declaration before anything connects, so help and usage errors never
 * touch the database. The connections open on first use.
 */
import type Redis from 'ioredis';
import { userInfo } from 'node:os';
import type { Pool } from 'pg';
import { recordAudit, type AuditActor } from '../../src/audit/record-audit';
import { createSecretCrypto, type SecretCrypto } from '../../src/auth/secret-crypto';
import { Catalog } from '../../src/catalog/catalog';
import { loadCatalogModels, seedCatalogIfEmpty } from '../../src/catalog/catalog-store';
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import { loadConfig, type Config } from '../../src/config';
import { systemClock } from '../../src/dependencies';
import { ensureDatabase, migrate } from '../../src/db/migrate';
import { createPool } from '../../src/db/pool';
import { redactUrl } from '../../src/process/build-dependencies';
import { createRedis } from '../../src/redis/connection';
import { createRedisKeys, type RedisKeys } from '../../src/redis/keys';
import type { UpstreamDeps } from '../../src/operator/save-upstream';
import { createUpstreamClient, type UpstreamClient } from '../../src/upstream/upstream-client';

/** A mistake in how the command was called: exit code 2. */
export class UsageError extends Error {}
/** A refusal about the data (unknown account, a name taken, a failed verification): exit code 1. */
export class AdminError extends Error {}

export type Flags = Record<string, string | true>;

export interface FlagSpec {
  /** Placeholder of the value (`N`, `URL`); absent for a switch such as `--org`. */
  value?: string;
  required?: boolean;
  help: string;
}

export interface AdminCommand {
  /** The words that name it: `upstream add`. */
  name: string;
  summary: string;
  /** Positional arguments after the words (`<id>`), with their help. */
  args?: Array<{ name: string; help: string }>;
  flags?: Record<string, FlagSpec>;
  /** Extra lines of help (examples). */
  notes?: string[];
  /** A change: recorded in the audit log once it succeeded (actor `cli`, the flags less any secret). */
  audit?: { action: string; targetType: string };
  run(context: AdminContext, input: { args: string[]; flags: Flags }): Promise<void>;
}

export function parseArgv(argv: string[]): { words: string[]; flags: Flags } {
  const words: string[] = [];
  const flags: Flags = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '-h') {
      flags.help = true;
      continue;
    }
    if (!arg.startsWith('--')) {
      words.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split(/=(.*)/s, 2);
    if (inline !== undefined) {
      flags[name] = inline;
      continue;
    }
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) flags[name] = true;
    else {
      flags[name] = next;
      i++;
    }
  }
  return { words, flags };
}

const COMMON_FLAGS = new Set(['json', 'help']);

/** Checks the flags against the command's declaration: unknown flags, missing values, missing required flags. */
export function checkFlags(command: AdminCommand, flags: Flags, args: string[]): void {
  const declared = command.flags ?? {};
  for (const [name, value] of Object.entries(flags)) {
    if (COMMON_FLAGS.has(name)) continue;
    const spec = declared[name];
    if (!spec) throw new UsageError(`${command.name}: unknown flag --${name}${suggestion(name, Object.keys(declared))}`);
    if (spec.value !== undefined && value === true) throw new UsageError(`${command.name}: --${name} needs a value (${spec.value})`);
    if (spec.value === undefined && value !== true) throw new UsageError(`${command.name}: --${name} takes no value`);
  }
  for (const [name, spec] of Object.entries(declared)) {
    if (spec.required && flags[name] === undefined) throw new UsageError(`${command.name}: --${name} is required`);
  }
  const expected = command.args ?? [];
  if (args.length < expected.length)
    throw new UsageError(
      `${command.name}: missing ${expected
        .slice(args.length)
        .map((a) => `<${a.name}>`)
        .join(' ')}`,
    );
  if (args.length > expected.length) throw new UsageError(`${command.name}: unexpected argument "${args[expected.length]}"`);
}

function suggestion(name: string, known: string[]): string {
  const close = known.find((k) => distance(k, name) <= 2);
  return close ? ` (did you mean --${close}?)` : '';
}

/** Edit distance (insertions, deletions, substitutions) for flag suggestions. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

export function text(flags: Flags, name: string): string | undefined {
  const value = flags[name];
  return typeof value === 'string' ? value : undefined;
}

export function requiredText(flags: Flags, name: string): string {
  const value = text(flags, name)?.trim();
  if (!value) throw new UsageError(`--${name} must not be empty`);
  return value;
}

export function wholeNumber(value: string, name: string, range: { min?: number; max?: number } = {}): number {
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number, not "${value}"`);
  const number = Number(value);
  if (range.min !== undefined && number < range.min) throw new UsageError(`--${name} must be at least ${range.min}`);
  if (range.max !== undefined && number > range.max) throw new UsageError(`--${name} must be at most ${range.max}`);
  return number;
}

export function id(value: string, what: string): number {
  if (!/^[1-9]\d{0,15}$/.test(value)) throw new UsageError(`${what} must be an id (a positive whole number), not "${value}"`);
  return Number(value);
}

export function usdToCredits(value: string, name: string): number {
  const usd = Number(value);
  if (value.trim() === '' || !Number.isFinite(usd) || usd < 0)
    throw new UsageError(`--${name} must be a non-negative number of USD, not "${value}"`);
  return Math.round(usd * 1_000_000);
}

export function oneOf<T extends string>(value: string, allowed: readonly T[], name: string): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`--${name} must be ${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}, not "${value}"`);
  return value as T;
}

export function list(value: string): string[] {
  return value
    .split(',')
    .map((m) => m.trim())
    .filter(Boolean);
}

/** The connections a command needs, opened on first use and closed at the end. */
export class AdminContext {
  readonly json: boolean;
  private configValue?: Config;
  private pool?: Pool;
  private redisConnection?: Redis;
  private client?: UpstreamClient;
  private catalogValue?: Catalog;

  constructor(options: { json: boolean }) {
    this.json = options.json;
  }

  /** What the command printed last (its result: the audit log takes the id of what it created). */
  lastResult?: Record<string, unknown>;

  print(result: Record<string, unknown>, human: string): void {
    this.lastResult = result;
    console.log(this.json ? JSON.stringify(result) : human);
  }

  config(): Config {
    this.configValue ??= loadConfig();
    return this.configValue;
  }

  crypto(): SecretCrypto {
    return createSecretCrypto(this.config().encryptionKey, this.config().hmacSecret);
  }

  redisKeys(): RedisKeys {
    return createRedisKeys(this.config().redisPrefix);
  }

  async db(): Promise<Pool> {
    if (this.pool) return this.pool;
    const { databaseUrl } = this.config();
    try {
      await ensureDatabase(databaseUrl);
      await migrate(databaseUrl);
    } catch (error) {
      throw new AdminError(
        `PostgreSQL is not reachable at ${redactUrl(databaseUrl)} (${(error as Error).message}); start it (docker compose up -d postgres redis) or set DATABASE_URL`,
      );
    }
    this.pool = createPool(databaseUrl, 2);
    return this.pool;
  }

  redis(): Redis {
    this.redisConnection ??= createRedis(this.config().redis);
    return this.redisConnection;
  }

  async catalog(): Promise<Catalog> {
    if (this.catalogValue) return this.catalogValue;
    const db = await this.db();
    await seedCatalogIfEmpty(db, DEFAULT_CATALOG);
    this.catalogValue = new Catalog(await loadCatalogModels(db));
    return this.catalogValue;
  }

  async upstreamDeps(): Promise<UpstreamDeps> {
    const upstream = this.config().upstream;
    this.client ??= createUpstreamClient({ ...upstream, connections: 8 });
    return {
      db: await this.db(),
      crypto: this.crypto(),
      catalog: await this.catalog(),
      clock: systemClock,
      redis: this.redis(),
      redisKeys: this.redisKeys(),
      upstreamClient: this.client,
    };
  }

  async close(): Promise<void> {
    this.redisConnection?.disconnect();
    await this.client?.close();
    await this.pool?.end();
  }
}

/** A unique-constraint violation (a name taken), to be told in the command's own words. */
export function isUniqueViolation(error: unknown): boolean {
  return (error as { code?: string }).code === '23505';
}

/** The audit log's actor for the CLI: `cli`, labelled with the OS user that ran it. */
export function cliActor(): AuditActor {
  let label = 'cli';
  try {
    label = `cli:${userInfo().username}`;
  } catch {
    /* no user database entry (containers) */
  }
  return { type: 'cli', label };
}

/**
 * A change the CLI made, in the audit log: the command's action, the id it printed (or its argument),
 * the account it named, and its flags as what changed (secret flags such as --api-key, --password
 * and --custom-key are left out by the audit log's own guard).
 */
export async function recordCliChange(
  context: AdminContext,
  command: AdminCommand,
  input: { args: string[]; flags: Flags },
): Promise<void> {
  if (!command.audit) return;
  const changes = Object.fromEntries(
    Object.entries(input.flags)
      .filter(([name]) => name !== 'json')
      .map(([name, value]) => [name.replace(/-/g, '_'), value]),
  );
  const printedId = context.lastResult?.id;
  const targetId =
    typeof printedId === 'number' || typeof printedId === 'string'
      ? printedId
      : (input.args[0] ?? (typeof input.flags.id === 'string' ? input.flags.id : null));
  const account =
    typeof input.flags.account === 'string' && /^\d{1,15}$/.test(input.flags.account)
      ? Number(input.flags.account)
      : command.audit.targetType === 'account' && typeof printedId === 'number'
        ? printedId
        : null;
  await recordAudit(await context.db(), cliActor(), {
    accountId: account,
    action: command.audit.action,
    targetType: command.audit.targetType,
    targetId,
    after: input.args.length > 0 ? { ...changes, args: input.args } : changes,
  });
}
