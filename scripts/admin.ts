/**
 * Operator CLI: `npm run admin -- <command> [--flags] [--json]`. Each command prints one JSON object
 * with --json, else a short human line.
 *   account create --name N --tier free|pro|max|enterprise [--concurrency N] [--org]   → {id}
 *   account topup --account ID --usd X                                                 → {balance_credits}
 *   group create --name N [--family F]                                                 → {id}
 *   upstream add --group G --protocol P --base-url U --api-key K --models m1,m2 [--priority N] [--weight N] → {id}
 *   key create --account ID --group G [--custom-key K] [--quota USD] [--name N]        → {id, key}
 *   user create --account ID --email E --password P                                    → {id}
 *   model list|add|update|retire|alias …                                               → see scripts/admin-model.ts
 */
import { createSecretCrypto } from '../src/auth/secret-crypto';
import { loadConfig } from '../src/config';
import { ensureDatabase, migrate } from '../src/db/migrate';
import { createPool } from '../src/db/pool';
import { topUpAccount } from '../src/billing/top-up-account';
import { addUpstreamAccount, createAccount, createConsoleUser, createGroup, findGroupId, type Tier } from '../src/process/seed';
import { createRedis } from '../src/redis/connection';
import { createRedisKeys } from '../src/redis/keys';
import { isProtocol } from '../src/ir/protocol';
import { insertApiKey } from '../src/keys/insert-api-key';
import { validateCustomKey } from '../src/auth/key-secret';
import { ModelUsageError, runModelCommand } from './admin-model';

class UsageError extends Error {}

function parseFlags(args: string[]): { positional: string[]; flags: Record<string, string | true> } {
  const positional: string[] = [];
  const flags: Record<string, string | true> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg.startsWith('--')) {
      const name = arg.slice(2);
      const next = args[i + 1];
      if (next === undefined || next.startsWith('--')) flags[name] = true;
      else { flags[name] = next; i++; }
    } else positional.push(arg);
  }
  return { positional, flags };
}

function required(flags: Record<string, string | true>, name: string): string {
  const value = flags[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function integer(value: string, name: string): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name} must be a whole number`);
  return Number(value);
}

function usdToCredits(value: string, name: string): number {
  const usd = Number(value);
  if (!Number.isFinite(usd) || usd < 0) throw new UsageError(`--${name} must be a non-negative number of USD`);
  return Math.round(usd * 1_000_000);
}

async function main(): Promise<void> {
  const { positional, flags } = parseFlags(process.argv.slice(2));
  const json = flags.json === true;
  const command = positional.slice(0, 2).join(' ');
  const config = loadConfig();
  await ensureDatabase(config.databaseUrl);
  await migrate(config.databaseUrl);
  const db = createPool(config.databaseUrl, 2);
  const crypto = createSecretCrypto(config.encryptionKey, config.hmacSecret);
  const print = (result: Record<string, unknown>, human: string) => console.log(json ? JSON.stringify(result) : human);
  try {
    switch (command) {
      case 'account create': {
        const tier = (flags.tier ?? 'free') as Tier;
        if (!['free', 'pro', 'max', 'enterprise'].includes(tier)) throw new UsageError('--tier must be free, pro, max or enterprise');
        const concurrency = typeof flags.concurrency === 'string' ? integer(flags.concurrency, 'concurrency') : undefined;
        const id = await createAccount(db, { name: required(flags, 'name'), tier, concurrencyCap: concurrency, organization: flags.org === true });
        print({ id }, `account ${id} created`);
        break;
      }
      case 'account topup': {
        const redis = createRedis(config.redis);
        try {
          const result = await topUpAccount({ db, redis, redisKeys: createRedisKeys(config.redisPrefix) },
            integer(required(flags, 'account'), 'account'), usdToCredits(required(flags, 'usd'), 'usd'));
          if (!result.walletCacheUpdated) console.error('warning: Redis unreachable; the reconciler will refresh the wallet cache');
          print({ balance_credits: result.balanceCredits }, `balance: ${result.balanceCredits} credits`);
        } finally {
          redis.disconnect();
        }
        break;
      }
      case 'group create': {
        const id = await createGroup(db, { name: required(flags, 'name'), family: typeof flags.family === 'string' ? flags.family : null });
        print({ id }, `group ${id} created`);
        break;
      }
      case 'upstream add': {
        const groupId = await findGroupId(db, required(flags, 'group'));
        if (groupId === undefined) throw new UsageError(`group ${String(flags.group)} not found`);
        const protocol = required(flags, 'protocol');
        if (!isProtocol(protocol)) throw new UsageError('--protocol must be messages, responses, chat or generate-content');
        const id = await addUpstreamAccount(db, crypto, {
          groupId, protocol, baseUrl: required(flags, 'base-url'), apiKey: required(flags, 'api-key'),
          models: required(flags, 'models').split(',').map((m) => m.trim()).filter(Boolean),
          priority: typeof flags.priority === 'string' ? integer(flags.priority, 'priority') : undefined,
          weight: typeof flags.weight === 'string' ? integer(flags.weight, 'weight') : undefined,
        });
        print({ id }, `upstream account ${id} added`);
        break;
      }
      case 'key create': {
        const groupId = await findGroupId(db, required(flags, 'group'));
        if (groupId === undefined) throw new UsageError(`group ${String(flags.group)} not found`);
        const custom = typeof flags['custom-key'] === 'string' ? flags['custom-key'] : undefined;
        const invalid = custom === undefined ? undefined : validateCustomKey(custom);
        if (invalid) throw new UsageError(invalid);
        const key = await insertApiKey(db, crypto, {
          accountId: integer(required(flags, 'account'), 'account'), groupId, name: typeof flags.name === 'string' ? flags.name : 'cli',
          secret: custom, quotaCredits: typeof flags.quota === 'string' ? usdToCredits(flags.quota, 'quota') : 0,
        });
        print({ id: key.id, key: key.secret }, `key ${key.id}: ${key.secret} (shown once)`);
        break;
      }
      case 'user create': {
        const id = await createConsoleUser(db, { accountId: integer(required(flags, 'account'), 'account'), email: required(flags, 'email'), password: required(flags, 'password') });
        print({ id }, `user ${id} created`);
        break;
      }
      default:
        if (positional[0] === 'model') {
          const redis = createRedis(config.redis);
          try {
            await runModelCommand(positional[1] ?? '', flags, { db, redis, redisKeys: createRedisKeys(config.redisPrefix) }, print);
          } finally {
            redis.disconnect();
          }
          break;
        }
        throw new UsageError(`unknown command "${command}"; see the header of scripts/admin.ts`);
    }
  } finally {
    await db.end();
  }
}

main().catch((error: Error) => {
  const message = error instanceof UsageError || error instanceof ModelUsageError ? error.message : `admin: ${error.message}`;
  if (process.argv.includes('--json')) console.log(JSON.stringify({ error: message }));
  else console.error(message);
  process.exit(1);
});
