/**
 * Which routing groups an account may use (issue 21, finding 10): every `public` group, and the
 * `private` groups an operator granted to it. One SQL condition (db/repositories/groups.ts) is shared
 * by the key lookup of authentication, the key form's group list and key creation, so the three never disagree.
 */
import type { Queryable } from '../db/queryable';
import { findGroupForAccount, type UsableGroup } from '../db/repositories/groups';
import { GatewayError } from '../errors/gateway-error';

/**
 * The group a key may be created in or moved to, by id (digits) or name: 400 naming `group_id` when
 * there is no such group, 403 `permission_error` naming it when the account may not use it.
 */
export async function requireUsableGroup(db: Queryable, accountId: number, reference: string | number): Promise<UsableGroup> {
  const text = String(reference);
  const byId = /^\d{1,15}$/.test(text);
  const row =
    typeof reference === 'number' && !byId ? undefined : await findGroupForAccount(db, accountId, byId ? { id: text } : { name: text });
  if (!row) throw new GatewayError('invalid_request', 'group_id: no routing group with this id or name', { param: 'group_id' });
  if (!row.usable) {
    throw new GatewayError(
      'permission',
      `routing group ${JSON.stringify(reference)} is not granted to this account (ask an operator for access)`,
      { param: 'group_id' },
    );
  }
  return { id: row.id, name: row.name, family: row.family, visibility: row.visibility };
}
