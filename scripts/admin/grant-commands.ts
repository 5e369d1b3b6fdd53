/**
 * `group visibility|grant|revoke|grants`: who may use a routing group. The same operations as the
 * operator API (src/operator/group-grants.ts), audited as the CLI (actor `cli`, the OS user as label).
 */
import { recordAudit } from '../../src/audit/record-audit';
import { publishKeyInvalidation } from '../../src/auth/create-key-authenticator';
import { grantGroup, listGroupGrants, revokeGroup, setGroupVisibility, type GrantDependencies } from '../../src/operator/group-grants';
import { cliActor, id, requiredText, UsageError, type AdminCommand, type AdminContext } from './cli';
import { requireAccount, requireGroup } from './lookups';

async function grantDeps(context: AdminContext): Promise<GrantDependencies> {
  const logger = { error: (details: object, message: string) => console.error(message, details) };
  const publisher = { redis: context.redis(), redisKeys: context.redisKeys() };
  return { db: await context.db(), logger, invalidateKey: (hmac) => publishKeyInvalidation(publisher, hmac) };
}

const GROUP_FLAG = { value: 'GROUP', required: true, help: 'routing group id or name' };
const ACCOUNT_FLAG = { value: 'ID', required: true, help: 'account id' };

export const GRANT_COMMANDS: AdminCommand[] = [
  {
    name: 'group visibility',
    summary: 'make a routing group public (every account) or private (granted accounts only)',
    flags: { group: GROUP_FLAG, public: { help: 'every account may use it' }, private: { help: 'only granted accounts may use it' } },
    async run(context, { flags }) {
      if ((flags.public === true) === (flags.private === true)) throw new UsageError('say --public or --private');
      const groupId = await requireGroup(context, requiredText(flags, 'group'));
      const visibility = flags.public === true ? 'public' : 'private';
      const db = await context.db();
      const before = await setGroupVisibility(await grantDeps(context), groupId, visibility);
      if (before !== visibility) {
        await recordAudit(db, cliActor(), {
          accountId: null,
          action: 'group.update',
          targetType: 'routing_group',
          targetId: groupId,
          before: { visibility: before },
          after: { visibility },
        });
      }
      context.print({ group_id: groupId, visibility }, `group ${groupId} is ${visibility}`);
    },
  },
  {
    name: 'group grant',
    summary: 'let an account use a private routing group',
    flags: { group: GROUP_FLAG, account: ACCOUNT_FLAG },
    async run(context, { flags }) {
      const groupId = await requireGroup(context, requiredText(flags, 'group'));
      const accountId = await requireAccount(context, requiredText(flags, 'account'));
      const created = await grantGroup(await grantDeps(context), groupId, accountId);
      if (created)
        await recordAudit(await context.db(), cliActor(), {
          accountId,
          action: 'grant.create',
          targetType: 'routing_group',
          targetId: groupId,
          after: { group_id: groupId, account_id: accountId },
        });
      context.print(
        { group_id: groupId, account_id: accountId, created },
        created ? `account ${accountId} may use group ${groupId}` : `account ${accountId} already had group ${groupId}`,
      );
    },
  },
  {
    name: 'group revoke',
    summary: 'take a private routing group away from an account (its keys there stop at once)',
    flags: { group: GROUP_FLAG, account: ACCOUNT_FLAG },
    async run(context, { flags }) {
      const groupId = await requireGroup(context, requiredText(flags, 'group'));
      const accountId = id(requiredText(flags, 'account'), '--account');
      const revoked = await revokeGroup(await grantDeps(context), groupId, accountId);
      if (revoked)
        await recordAudit(await context.db(), cliActor(), {
          accountId,
          action: 'grant.revoke',
          targetType: 'routing_group',
          targetId: groupId,
          before: { group_id: groupId, account_id: accountId },
        });
      context.print(
        { group_id: groupId, account_id: accountId, revoked },
        revoked
          ? `grant revoked: account ${accountId}'s keys in group ${groupId} stop now`
          : `account ${accountId} had no grant of group ${groupId}`,
      );
    },
  },
  {
    name: 'group grants',
    summary: 'list the accounts granted a routing group',
    flags: { group: GROUP_FLAG },
    async run(context, { flags }) {
      const groupId = await requireGroup(context, requiredText(flags, 'group'));
      const grants = (await listGroupGrants(await context.db(), groupId)).map((g) => ({
        account_id: g.accountId,
        account_name: g.accountName,
        created_at: g.createdAt.toISOString(),
      }));
      context.print(
        { grants },
        grants.length === 0 ? 'no grants' : grants.map((g) => `${g.account_id}\t${g.account_name}\t${g.created_at}`).join('\n'),
      );
    },
  },
];
