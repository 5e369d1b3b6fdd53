/**
 * An operator's control of who may use a routing group (issue 21, finding 10): its visibility
 * (public or private) and the accounts a private group is granted to. Shared by the operator API
 * and the admin CLI. Every change that can take a group away from an account publishes the
 * invalidation of that account's keys in the group: each API process drops them from its key cache
 * at once (and cuts their open streams), so the next request sees the grant as the database has it.
 */
import type { Pool } from 'pg';
import { publishKeyInvalidation } from '../auth/create-key-authenticator';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';

type GrantDependencies = Pick<Dependencies, 'db' | 'redis' | 'redisKeys'> & { logger: { error(details: object, message: string): void } };

export type GroupVisibility = 'public' | 'private';

export interface GroupGrant {
  accountId: number;
  accountName: string;
  createdAt: Date;
}

async function requireGroup(db: Pool, groupId: number): Promise<{ name: string; visibility: GroupVisibility }> {
  const result = await db.query<{ name: string; visibility: GroupVisibility }>('SELECT name, visibility FROM routing_groups WHERE id = $1', [groupId]);
  if (!result.rows[0]) throw new GatewayError('not_found', 'routing group not found');
  return result.rows[0];
}

/** Drops the keys from every process's cache; the database is already the truth (a Redis failure is logged, caches expire). */
async function invalidateKeys(deps: GrantDependencies, where: string, values: unknown[]): Promise<number> {
  const keys = await deps.db.query<{ secret_hmac: string }>(`SELECT secret_hmac FROM api_keys WHERE ${where}`, values);
  try {
    for (const row of keys.rows) await publishKeyInvalidation(deps, row.secret_hmac);
  } catch (error) {
    deps.logger.error({ err: error }, 'group access changed but key invalidation not published through Redis');
  }
  return keys.rows.length;
}

export async function listGroupGrants(db: Pool, groupId: number): Promise<GroupGrant[]> {
  await requireGroup(db, groupId);
  const result = await db.query<{ account_id: string; name: string; created_at: Date }>(
    `SELECT gg.account_id, a.name, gg.created_at FROM routing_group_grants gg JOIN accounts a ON a.id = gg.account_id
      WHERE gg.group_id = $1 ORDER BY gg.account_id`, [groupId]);
  return result.rows.map((row) => ({ accountId: Number(row.account_id), accountName: row.name, createdAt: row.created_at }));
}

/** Grants a group to an account; true when the grant is new. */
export async function grantGroup(deps: GrantDependencies, groupId: number, accountId: number): Promise<boolean> {
  await requireGroup(deps.db, groupId);
  const account = await deps.db.query('SELECT 1 FROM accounts WHERE id = $1', [accountId]);
  if (!account.rowCount) throw new GatewayError('not_found', 'account not found');
  const inserted = await deps.db.query(
    'INSERT INTO routing_group_grants (group_id, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [groupId, accountId]);
  // Keys refused a moment ago (cached as not granted) become usable at once.
  if (inserted.rowCount) await invalidateKeys(deps, 'group_id = $1 AND account_id = $2', [groupId, accountId]);
  return (inserted.rowCount ?? 0) > 0;
}

/** Revokes a grant; the account's keys in the group stop on every API process. False when there was none. */
export async function revokeGroup(deps: GrantDependencies, groupId: number, accountId: number): Promise<boolean> {
  await requireGroup(deps.db, groupId);
  const deleted = await deps.db.query('DELETE FROM routing_group_grants WHERE group_id = $1 AND account_id = $2', [groupId, accountId]);
  if (!deleted.rowCount) return false;
  await invalidateKeys(deps, 'group_id = $1 AND account_id = $2', [groupId, accountId]);
  return true;
}

/** Makes a group public or private; the group's keys are re-read everywhere. Returns the previous visibility. */
export async function setGroupVisibility(deps: GrantDependencies, groupId: number, visibility: GroupVisibility): Promise<GroupVisibility> {
  const before = await requireGroup(deps.db, groupId);
  if (before.visibility === visibility) return before.visibility;
  await deps.db.query('UPDATE routing_groups SET visibility = $2 WHERE id = $1', [groupId, visibility]);
  await invalidateKeys(deps, 'group_id = $1', [groupId]);
  return before.visibility;
}
