/**
 * `npm run admin -- group <visibility|grant|revoke|grants> … [--json]`: who may use a routing group
 * (issue 21). The same operations as the operator API (src/operator/group-grants.ts), audited as the
 * CLI (actor `cli`, the OS user as label).
 *   group visibility --group G --public|--private   → {group_id, visibility}
 *   group grant --group G --account ID              → {group_id, account_id, created}
 *   group revoke --group G --account ID             → {group_id, account_id, revoked}   (the keys stop on every API process)
 *   group grants --group G                          → {grants: [{account_id, account_name, created_at}]}
 */
import { userInfo } from 'node:os';
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import { recordAudit, type AuditActor } from '../src/audit/record-audit';
import { findGroupId } from '../src/keys/find-group-id';
import { grantGroup, listGroupGrants, revokeGroup, setGroupVisibility } from '../src/operator/group-grants';
import type { RedisKeys } from '../src/redis/keys';

export class GrantUsageError extends Error {}

type Flags = Record<string, string | true>;

export const GROUP_ACCESS_COMMANDS = ['visibility', 'grant', 'revoke', 'grants'];

function cliActor(): AuditActor {
  let label = 'cli';
  try { label = `cli:${userInfo().username}`; } catch { /* no user database entry (containers) */ }
  return { type: 'cli', label };
}

async function groupFlag(db: Pool, flags: Flags): Promise<number> {
  const value = flags.group;
  if (typeof value !== 'string' || value === '') throw new GrantUsageError('--group is required (a routing group id or name)');
  const id = await findGroupId(db, value);
  if (id === undefined) throw new GrantUsageError(`group ${value} not found`);
  return id;
}

function accountFlag(flags: Flags): number {
  const value = flags.account;
  if (typeof value !== 'string' || !/^[1-9]\d{0,15}$/.test(value)) throw new GrantUsageError('--account is required: an account id');
  return Number(value);
}

export async function runGroupAccessCommand(
  sub: string, flags: Flags, deps: { db: Pool; redis: Redis; redisKeys: RedisKeys },
  print: (result: Record<string, unknown>, human: string) => void,
): Promise<void> {
  const grantDeps = { ...deps, logger: { error: (details: object, message: string) => console.error(message, details) } };
  const groupId = await groupFlag(deps.db, flags);
  switch (sub) {
    case 'visibility': {
      if ((flags.public === true) === (flags.private === true)) throw new GrantUsageError('say --public or --private');
      const visibility = flags.public === true ? 'public' : 'private';
      const before = await setGroupVisibility(grantDeps, groupId, visibility);
      if (before !== visibility) {
        await recordAudit(deps.db, cliActor(), { accountId: null, action: 'group.update', targetType: 'routing_group', targetId: groupId, before: { visibility: before }, after: { visibility } });
      }
      print({ group_id: groupId, visibility }, `group ${groupId} is ${visibility}`);
      return;
    }
    case 'grant': {
      const accountId = accountFlag(flags);
      const created = await grantGroup(grantDeps, groupId, accountId);
      if (created) await recordAudit(deps.db, cliActor(), { accountId, action: 'grant.create', targetType: 'routing_group', targetId: groupId, after: { group_id: groupId, account_id: accountId } });
      print({ group_id: groupId, account_id: accountId, created }, created ? `account ${accountId} may use group ${groupId}` : `account ${accountId} already had group ${groupId}`);
      return;
    }
    case 'revoke': {
      const accountId = accountFlag(flags);
      const revoked = await revokeGroup(grantDeps, groupId, accountId);
      if (revoked) await recordAudit(deps.db, cliActor(), { accountId, action: 'grant.revoke', targetType: 'routing_group', targetId: groupId, before: { group_id: groupId, account_id: accountId } });
      print({ group_id: groupId, account_id: accountId, revoked }, revoked ? `grant revoked: account ${accountId}'s keys in group ${groupId} stop now` : `account ${accountId} had no grant of group ${groupId}`);
      return;
    }
    case 'grants': {
      const grants = (await listGroupGrants(deps.db, groupId)).map((g) => ({ account_id: g.accountId, account_name: g.accountName, created_at: g.createdAt.toISOString() }));
      print({ grants }, grants.length === 0 ? 'no grants' : grants.map((g) => `${g.account_id}\t${g.account_name}\t${g.created_at}`).join('\n'));
      return;
    }
    default:
      throw new GrantUsageError(`unknown command "group ${sub}"; use group visibility|grant|revoke|grants`);
  }
}
