/**
 * The admin CLI's commands: accounts, routing groups, keys and console users. Upstream accounts are
 * in upstream-commands.ts, the catalog in model-commands.ts. Another module adds its commands by
 * appending its own table to COMMANDS.
 */
import { topUpAccount } from '../../src/billing/top-up-account';
import { validateCustomKey } from '../../src/auth/key-secret';
import { listAccounts } from '../../src/db/repositories/accounts';
import { updateConsoleUserRole } from '../../src/db/repositories/console-users';
import { listGroups } from '../../src/db/repositories/groups';
import { insertApiKey } from '../../src/keys/insert-api-key';
import { createAccount, createConsoleUser, createGroup, type Tier } from '../../src/process/seed';
import { announceUpstreamsChanged } from '../../src/upstream/announce-upstreams-changed';
import { AdminError, isUniqueViolation, oneOf, requiredText, text, UsageError, usdToCredits, wholeNumber, type AdminCommand } from './cli';
import { requireAccount, requireGroup } from './lookups';
import { DB_COMMANDS } from './db-commands';
import { GRANT_COMMANDS } from './grant-commands';
import { MODEL_COMMANDS } from './model-commands';
import { UPSTREAM_COMMANDS } from './upstream-commands';

const TIERS: readonly Tier[] = ['free', 'pro', 'max', 'enterprise'];
const ROLES = ['member', 'operator'] as const;

const ACCOUNT_COMMANDS: AdminCommand[] = [
  {
    name: 'account create',
    summary: 'create a customer account (wallet starts at 0)',
    audit: { action: 'account.create', targetType: 'account' },
    flags: {
      name: { value: 'NAME', required: true, help: 'display name' },
      tier: { value: 'TIER', help: 'free, pro, max or enterprise (default free)' },
      concurrency: { value: 'N', help: "concurrent requests cap (default: the tier's)" },
      org: { help: 'an organization account (default: a personal one)' },
    },
    async run(context, { flags }) {
      const tier = oneOf(text(flags, 'tier') ?? 'free', TIERS, 'tier');
      const concurrency = text(flags, 'concurrency');
      const input = {
        name: requiredText(flags, 'name'),
        tier,
        concurrencyCap: concurrency === undefined ? undefined : wholeNumber(concurrency, 'concurrency', { min: 1, max: 100_000 }),
        organization: flags.org === true,
      };
      const accountId = await createAccount(await context.db(), input);
      context.print({ id: accountId }, `account ${accountId} created`);
    },
  },
  {
    name: 'account list',
    summary: 'list accounts with their balance',
    async run(context) {
      const accounts = (await listAccounts(await context.db())).map((a) => ({
        id: a.id,
        name: a.name,
        tier: a.tier,
        balance_usd: a.balanceCredits / 1_000_000,
      }));
      context.print({ accounts }, accounts.map((a) => `${a.id}  ${a.name}  ${a.tier}  ${a.balance_usd} USD`).join('\n') || 'no accounts');
    },
  },
  {
    name: 'account topup',
    summary: "add USD to an account's wallet",
    audit: { action: 'money.topup', targetType: 'account' },
    flags: { account: { value: 'ID', required: true, help: 'account id' }, usd: { value: 'USD', required: true, help: 'amount in USD' } },
    async run(context, { flags }) {
      const credits = usdToCredits(requiredText(flags, 'usd'), 'usd');
      if (credits === 0) throw new UsageError('--usd must be more than 0');
      const accountId = await requireAccount(context, requiredText(flags, 'account'));
      const result = await topUpAccount(
        { db: await context.db(), redis: context.redis(), redisKeys: context.redisKeys() },
        accountId,
        credits,
      );
      if (!result.walletCacheUpdated) console.error('warning: Redis unreachable; the reconciler will refresh the wallet cache');
      context.print({ balance_credits: result.balanceCredits }, `balance: ${result.balanceCredits} credits`);
    },
  },
];

const GROUP_COMMANDS: AdminCommand[] = [
  {
    name: 'group create',
    summary: 'create a routing group (keys belong to one; its upstream accounts serve them)',
    audit: { action: 'group.create', targetType: 'routing_group' },
    flags: {
      name: { value: 'NAME', required: true, help: 'unique name' },
      family: { value: 'FAMILY', help: 'route only this model family (anthropic, openai, google, …); default: every family' },
    },
    async run(context, { flags }) {
      const name = requiredText(flags, 'name');
      const family = text(flags, 'family');
      if (family !== undefined) {
        const families = [...new Set((await context.catalog()).models.map((m) => m.family))];
        if (!families.includes(family)) throw new UsageError(`--family must be one of ${families.join(', ')}, not "${family}"`);
      }
      let groupId: number;
      try {
        groupId = await createGroup(await context.db(), { name, family: family ?? null });
      } catch (error) {
        if (isUniqueViolation(error)) throw new AdminError(`a routing group named "${name}" already exists`);
        throw error;
      }
      await announceUpstreamsChanged(context.redis(), context.redisKeys());
      context.print({ id: groupId }, `group ${groupId} created`);
    },
  },
  {
    name: 'group list',
    summary: 'list routing groups',
    async run(context) {
      const groups = (await listGroups(await context.db())).map((g) => ({
        id: g.id,
        name: g.name,
        family: g.family,
        upstreams: g.upstreams,
        keys: g.keys,
      }));
      context.print(
        { groups },
        groups.map((g) => `${g.id}  ${g.name}  ${g.family ?? 'every family'}  upstreams ${g.upstreams}  keys ${g.keys}`).join('\n') ||
          'no groups',
      );
    },
  },
];

const KEY_COMMANDS: AdminCommand[] = [
  {
    name: 'key create',
    summary: 'create an API key for an account in a routing group (the secret is shown once)',
    audit: { action: 'key.create', targetType: 'api_key' },
    flags: {
      account: { value: 'ID', required: true, help: 'account id' },
      group: { value: 'GROUP', required: true, help: 'routing group name or id' },
      name: { value: 'NAME', help: 'a name to tell keys apart (default "cli")' },
      'custom-key': { value: 'KEY', help: 'use this secret instead of a generated one' },
      quota: { value: 'USD', help: 'lifetime spending cap in USD (default: none)' },
    },
    async run(context, { flags }) {
      const custom = text(flags, 'custom-key');
      const invalid = custom === undefined ? undefined : validateCustomKey(custom);
      if (invalid) throw new UsageError(`--custom-key: ${invalid}`);
      const name = text(flags, 'name') ?? 'cli';
      if (name.trim() === '' || name.length > 200) throw new UsageError('--name must be 1 to 200 characters');
      const quota = text(flags, 'quota');
      const quotaCredits = quota === undefined ? 0 : usdToCredits(quota, 'quota');
      const accountId = await requireAccount(context, requiredText(flags, 'account'));
      const groupId = await requireGroup(context, requiredText(flags, 'group'));
      let key;
      try {
        key = await insertApiKey(await context.db(), context.crypto(), {
          accountId,
          groupId,
          name: name.trim(),
          secret: custom,
          quotaCredits,
        });
      } catch (error) {
        if ((error as { kind?: string }).kind === 'conflict')
          throw new AdminError('a key with this secret already exists; choose another --custom-key');
        throw error;
      }
      context.print({ id: key.id, key: key.secret, name: name.trim() }, `key ${key.id} "${name.trim()}": ${key.secret} (shown once)`);
    },
  },
];

const USER_COMMANDS: AdminCommand[] = [
  {
    name: 'user create',
    summary: 'create a console login for an account',
    audit: { action: 'console_user.create', targetType: 'console_user' },
    flags: {
      account: { value: 'ID', required: true, help: 'account id' },
      email: { value: 'EMAIL', required: true, help: 'login email' },
      password: { value: 'PASSWORD', required: true, help: 'at least 8 characters' },
      role: {
        value: 'ROLE',
        help: 'member (its own account) or operator (manages every account, groups, upstreams, catalog); default member',
      },
    },
    async run(context, { flags }) {
      const role = oneOf(text(flags, 'role') ?? 'member', ROLES, 'role');
      const email = requiredText(flags, 'email');
      if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new UsageError(`--email must be an email address, not "${email}"`);
      const password = text(flags, 'password') ?? '';
      if (password.length < 8) throw new UsageError('--password must be at least 8 characters');
      const accountId = await requireAccount(context, requiredText(flags, 'account'));
      const db = await context.db();
      let userId: number;
      try {
        userId = await createConsoleUser(db, { accountId, email, password });
      } catch (error) {
        if (isUniqueViolation(error)) throw new AdminError(`a console user with email ${email.toLowerCase()} already exists`);
        throw error;
      }
      await updateConsoleUserRole(db, userId, role);
      context.print({ id: userId, role }, `user ${userId} created (${role})`);
    },
  },
];

/** Every command, in the order help lists them. */
export const COMMANDS: AdminCommand[] = [
  ...ACCOUNT_COMMANDS,
  ...GROUP_COMMANDS,
  ...GRANT_COMMANDS,
  ...UPSTREAM_COMMANDS,
  ...KEY_COMMANDS,
  ...USER_COMMANDS,
  ...MODEL_COMMANDS,
  ...DB_COMMANDS,
];
