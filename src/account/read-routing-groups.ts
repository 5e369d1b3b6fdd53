/**
 * The routing groups of an account's usable keys (active, unexpired, in a group the account may
 * use) with their active upstream accounts, and the model allowlists of those keys per group. With
 * `keyId` (a caller authenticated by key) that key's allowlist also applies: it sees what it may call.
 */
import type { Pool } from 'pg';
import { compileModelAllowlist } from '../auth/model-allowlist';
import type { Protocol } from '../ir/protocol';
import { groupUsableSql } from '../auth/group-access';
import type { RoutingGroupView } from './routable-models';

export async function readRoutingGroups(db: Pool, accountId: number, now: Date, keyId?: number): Promise<RoutingGroupView[]> {
  const keys = await db.query<{ id: string; group_id: string; allowed_models: string[] }>(
    `SELECT k.id, k.group_id, k.allowed_models FROM api_keys k JOIN routing_groups g ON g.id = k.group_id
      WHERE k.account_id = $1 AND k.status = 'active' AND (k.expires_at IS NULL OR k.expires_at > $2)
        AND ${groupUsableSql('k.account_id')}`,
    [accountId, now]);
  const caller = compileModelAllowlist(keys.rows.find((row) => Number(row.id) === keyId)?.allowed_models ?? []);
  const allowlists = new Map<number, string[][]>();
  for (const row of keys.rows) allowlists.set(Number(row.group_id), [...allowlists.get(Number(row.group_id)) ?? [], row.allowed_models]);
  if (allowlists.size === 0) return [];
  const result = await db.query<{ id: number; name: string; family: string | null; protocol: Protocol | null; models: string[] | null }>(
    `SELECT g.id, g.name, g.family, u.protocol, u.models
       FROM routing_groups g
       LEFT JOIN upstream_accounts u ON u.group_id = g.id AND u.status = 'active'
      WHERE g.id = ANY($1::bigint[])
      ORDER BY g.id, u.id`,
    [[...allowlists.keys()]]);
  const groups = new Map<number, RoutingGroupView>();
  for (const row of result.rows) {
    const id = Number(row.id);
    const lists = (allowlists.get(id) ?? []).map(compileModelAllowlist);
    const group = groups.get(id) ?? { id, name: row.name, family: row.family, upstreams: [], allows: (model: string) => caller.allows(model) && lists.some((list) => list.allows(model)) };
    if (row.protocol !== null && row.models !== null) group.upstreams.push({ protocol: row.protocol, models: row.models });
    groups.set(id, group);
  }
  return [...groups.values()];
}
