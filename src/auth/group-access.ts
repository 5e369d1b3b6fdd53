/**
 * Which routing groups an account may use (issue 21, finding 10): every `public` group, and the
 * `private` groups an operator granted to it. The SQL condition is shared by the key lookup of
 * authentication, the key form's group list and key creation, so the three never disagree.
 */
import type { Pool, PoolClient } from 'pg';
import { GatewayError } from '../errors/gateway-error';

/** True when account `accountColumn` may use group `g` (alias of routing_groups). */
export function groupUsableSql(accountColumn: string): string {
  return `(g.visibility = 'public' OR EXISTS (SELECT 1 FROM routing_group_grants gg WHERE gg.group_id = g.id AND gg.account_id = ${accountColumn}))`;
}

export interface UsableGroup {
  id: number;
  name: string;
  family: string | null;
  visibility: 'public' | 'private';
}

export async function listUsableGroups(db: Pool, accountId: number): Promise<UsableGroup[]> {
  const result = await db.query<UsableGroup & { id: string }>(
    `SELECT g.id, g.name, g.family, g.visibility FROM routing_groups g WHERE ${groupUsableSql('$1')} ORDER BY g.id`, [accountId]);
  return result.rows.map((row) => ({ ...row, id: Number(row.id) }));
}

/**
 * The group a key may be created in or moved to, by id (digits) or name: 400 naming `group_id` when
 * there is no such group, 403 `permission_error` naming it when the account may not use it.
 */
export async function requireUsableGroup(db: Pool | PoolClient, accountId: number, reference: string | number): Promise<UsableGroup> {
  const text = String(reference);
  const byId = /^\d{1,15}$/.test(text);
  const result = typeof reference === 'number' && !byId ? { rows: [] } : await db.query<UsableGroup & { id: string; usable: boolean }>(
    `SELECT g.id, g.name, g.family, g.visibility, ${groupUsableSql('$2')} AS usable
       FROM routing_groups g WHERE ${byId ? 'g.id = $1::bigint' : 'g.name = $1'}`,
    [text, accountId]);
  const row = result.rows[0];
  if (!row) throw new GatewayError('invalid_request', 'group_id: no routing group with this id or name', { param: 'group_id' });
  if (!row.usable) {
    throw new GatewayError('permission', `routing group ${JSON.stringify(reference)} is not granted to this account (ask an operator for access)`, { param: 'group_id' });
  }
  return { id: Number(row.id), name: row.name, family: row.family, visibility: row.visibility };
}
