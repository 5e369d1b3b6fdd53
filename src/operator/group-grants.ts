/**
 * An operator's control of who may use a routing group (issue 21, finding 10): its visibility
 * (public or private) and the accounts a private group is granted to. Shared by the operator API
 * and the admin CLI. Every change that can take a group away from an account publishes the
 * invalidation of that account's keys in the group: each API process drops them from its key cache
 * at once (and cuts their open streams), so the next request sees the grant as the database has it.
 */
import type { Pool } from 'pg';
import { accountExists } from '../db/repositories/accounts';
import { listKeySecretHmacsInGroup } from '../db/repositories/api-keys';
import {
  deleteGroupGrant,
  findGroup,
  insertGroupGrant,
  listGroupGrants as listGrantRows,
  updateGroupVisibility,
  type GroupGrant,
  type GroupVisibility,
} from '../db/repositories/groups';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';

/**
 * `invalidateKey` tells every API process that a key changed: the API's authenticator (which also
 * drops it from its own cache at once), or the admin CLI's bare publication.
 */
export type GrantDependencies = Pick<Dependencies, 'db'> & {
  logger: { error(details: object, message: string): void };
  invalidateKey(secretHmac: string): Promise<void>;
};

async function requireGroup(db: Pool, groupId: number): Promise<{ name: string; visibility: GroupVisibility }> {
  const group = await findGroup(db, groupId);
  if (!group) throw new GatewayError('not_found', 'routing group not found');
  return group;
}

/**
 * Drops the group's keys (of one account, or all) from every process's cache; the database is already
 * the truth (a Redis failure is logged, caches expire).
 */
async function invalidateKeys(deps: GrantDependencies, groupId: number, accountId?: number): Promise<number> {
  const hmacs = await listKeySecretHmacsInGroup(deps.db, groupId, accountId);
  try {
    for (const hmac of hmacs) await deps.invalidateKey(hmac);
  } catch (error) {
    deps.logger.error({ err: error }, 'group access changed but key invalidation not published through Redis');
  }
  return hmacs.length;
}

export async function listGroupGrants(db: Pool, groupId: number): Promise<GroupGrant[]> {
  await requireGroup(db, groupId);
  return listGrantRows(db, groupId);
}

/** Grants a group to an account; true when the grant is new. */
export async function grantGroup(deps: GrantDependencies, groupId: number, accountId: number): Promise<boolean> {
  await requireGroup(deps.db, groupId);
  if (!(await accountExists(deps.db, accountId))) throw new GatewayError('not_found', 'account not found');
  const inserted = await insertGroupGrant(deps.db, groupId, accountId);
  // Keys refused a moment ago (cached as not granted) become usable at once.
  if (inserted) await invalidateKeys(deps, groupId, accountId);
  return inserted;
}

/** Revokes a grant; the account's keys in the group stop on every API process. False when there was none. */
export async function revokeGroup(deps: GrantDependencies, groupId: number, accountId: number): Promise<boolean> {
  await requireGroup(deps.db, groupId);
  if (!(await deleteGroupGrant(deps.db, groupId, accountId))) return false;
  await invalidateKeys(deps, groupId, accountId);
  return true;
}

/** Makes a group public or private; the group's keys are re-read everywhere. Returns the previous visibility. */
export async function setGroupVisibility(deps: GrantDependencies, groupId: number, visibility: GroupVisibility): Promise<GroupVisibility> {
  const before = await requireGroup(deps.db, groupId);
  if (before.visibility === visibility) return before.visibility;
  await updateGroupVisibility(deps.db, groupId, visibility);
  await invalidateKeys(deps, groupId);
  return before.visibility;
}
