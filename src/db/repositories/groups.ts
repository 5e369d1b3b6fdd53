/**
 * Routing groups and their grants (`routing_groups`, `routing_group_grants`): a group is usable by
 * an account when it is public or granted to it. The SQL condition of that rule is shared by the key
 * lookup of authentication, the key form's group list and key creation, so they never disagree.
 */
import type { Queryable } from '../queryable';

export type GroupVisibility = 'public' | 'private';

/** True when account `accountColumn` may use group `g` (alias of routing_groups). */
export function groupUsableSql(accountColumn: string): string {
  return `(g.visibility = 'public' OR EXISTS (SELECT 1 FROM routing_group_grants gg WHERE gg.group_id = g.id AND gg.account_id = ${accountColumn}))`;
}

export interface UsableGroup {
  id: number;
  name: string;
  family: string | null;
  visibility: GroupVisibility;
}

export async function insertGroup(
  db: Queryable,
  input: { name: string; family: string | null; visibility: GroupVisibility },
): Promise<number> {
  const result = await db.query<{ id: number }>('INSERT INTO routing_groups (name, family, visibility) VALUES ($1, $2, $3) RETURNING id', [
    input.name,
    input.family,
    input.visibility,
  ]);
  return result.rows[0].id;
}

export async function findGroup(db: Queryable, groupId: number): Promise<{ name: string; visibility: GroupVisibility } | undefined> {
  const result = await db.query<{ name: string; visibility: GroupVisibility }>(
    'SELECT name, visibility FROM routing_groups WHERE id = $1',
    [groupId],
  );
  return result.rows[0];
}

/** A routing group by id (digits) or name. */
export async function findGroupId(db: Queryable, idOrName: string | number): Promise<number | undefined> {
  const asNumber = typeof idOrName === 'number' ? idOrName : /^\d+$/.test(idOrName) ? Number(idOrName) : undefined;
  const result =
    asNumber !== undefined
      ? await db.query<{ id: number }>('SELECT id FROM routing_groups WHERE id = $1', [asNumber])
      : await db.query<{ id: number }>('SELECT id FROM routing_groups WHERE name = $1', [idOrName]);
  return result.rows[0]?.id;
}

/** A group by id (digits, as text) or name, with whether the account may use it. */
export async function findGroupForAccount(
  db: Queryable,
  accountId: number,
  lookup: { id: string } | { name: string },
): Promise<(UsableGroup & { usable: boolean }) | undefined> {
  const byId = 'id' in lookup;
  const result = await db.query<UsableGroup & { id: string; usable: boolean }>(
    `SELECT g.id, g.name, g.family, g.visibility, ${groupUsableSql('$2')} AS usable
       FROM routing_groups g WHERE ${byId ? 'g.id = $1::bigint' : 'g.name = $1'}`,
    [byId ? lookup.id : lookup.name, accountId],
  );
  const row = result.rows[0];
  return row && { id: Number(row.id), name: row.name, family: row.family, visibility: row.visibility, usable: row.usable };
}

export async function listUsableGroups(db: Queryable, accountId: number): Promise<UsableGroup[]> {
  const result = await db.query<UsableGroup & { id: string }>(
    `SELECT g.id, g.name, g.family, g.visibility FROM routing_groups g WHERE ${groupUsableSql('$1')} ORDER BY g.id`,
    [accountId],
  );
  return result.rows.map((row) => ({ ...row, id: Number(row.id) }));
}

export interface GroupSummary extends UsableGroup {
  grants: number;
  upstreams: number;
  keys: number;
}

/** Every group with how many grants, upstream accounts and keys it has. */
export async function listGroups(db: Queryable): Promise<GroupSummary[]> {
  const result = await db.query<{
    id: string;
    name: string;
    family: string | null;
    visibility: GroupVisibility;
    grants: string;
    upstreams: string;
    keys: string;
  }>(
    `SELECT g.id, g.name, g.family, g.visibility,
            (SELECT count(*) FROM routing_group_grants gg WHERE gg.group_id = g.id) AS grants,
            (SELECT count(*) FROM upstream_accounts u WHERE u.group_id = g.id) AS upstreams,
            (SELECT count(*) FROM api_keys k WHERE k.group_id = g.id) AS keys
       FROM routing_groups g ORDER BY g.id`,
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    name: row.name,
    family: row.family,
    visibility: row.visibility,
    grants: Number(row.grants),
    upstreams: Number(row.upstreams),
    keys: Number(row.keys),
  }));
}

/** Groups by id, one row per active upstream account (protocol and models null for a group with none), by group then account. */
export async function listGroupsWithActiveUpstreams<TProtocol extends string = string>(
  db: Queryable,
  groupIds: number[],
): Promise<
  Array<{
    id: number;
    name: string;
    family: string | null;
    protocol: TProtocol | null;
    models: string[] | null;
  }>
> {
  const result = await db.query<{ id: number; name: string; family: string | null; protocol: TProtocol | null; models: string[] | null }>(
    `SELECT g.id, g.name, g.family, u.protocol, u.models
       FROM routing_groups g
       LEFT JOIN upstream_accounts u ON u.group_id = g.id AND u.status = 'active'
      WHERE g.id = ANY($1::bigint[])
      ORDER BY g.id, u.id`,
    [groupIds],
  );
  return result.rows.map((row) => ({ ...row, id: Number(row.id) }));
}

export async function updateGroupVisibility(db: Queryable, groupId: number, visibility: GroupVisibility): Promise<void> {
  await db.query('UPDATE routing_groups SET visibility = $2 WHERE id = $1', [groupId, visibility]);
}

export interface GroupGrant {
  accountId: number;
  accountName: string;
  createdAt: Date;
}

export async function listGroupGrants(db: Queryable, groupId: number): Promise<GroupGrant[]> {
  const result = await db.query<{ account_id: string; name: string; created_at: Date }>(
    `SELECT gg.account_id, a.name, gg.created_at FROM routing_group_grants gg JOIN accounts a ON a.id = gg.account_id
      WHERE gg.group_id = $1 ORDER BY gg.account_id`,
    [groupId],
  );
  return result.rows.map((row) => ({ accountId: Number(row.account_id), accountName: row.name, createdAt: row.created_at }));
}

/** True when the grant is new. */
export async function insertGroupGrant(db: Queryable, groupId: number, accountId: number): Promise<boolean> {
  const inserted = await db.query('INSERT INTO routing_group_grants (group_id, account_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [
    groupId,
    accountId,
  ]);
  return (inserted.rowCount ?? 0) > 0;
}

/** False when there was no such grant. */
export async function deleteGroupGrant(db: Queryable, groupId: number, accountId: number): Promise<boolean> {
  const deleted = await db.query('DELETE FROM routing_group_grants WHERE group_id = $1 AND account_id = $2', [groupId, accountId]);
  return (deleted.rowCount ?? 0) > 0;
}
