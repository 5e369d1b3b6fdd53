/** The routing groups of an account's usable keys (active, unexpired) with their active upstream accounts. */
import type { Pool } from 'pg';
import type { Protocol } from '../ir/protocol';
import type { RoutingGroupView } from './routable-models';

export async function readRoutingGroups(db: Pool, accountId: number, now: Date): Promise<RoutingGroupView[]> {
  const result = await db.query<{ id: number; name: string; family: string | null; protocol: Protocol | null; models: string[] | null }>(
    `SELECT g.id, g.name, g.family, u.protocol, u.models
       FROM routing_groups g
       LEFT JOIN upstream_accounts u ON u.group_id = g.id AND u.status = 'active'
      WHERE g.id IN (SELECT group_id FROM api_keys
                      WHERE account_id = $1 AND status = 'active' AND (expires_at IS NULL OR expires_at > $2))
      ORDER BY g.id, u.id`,
    [accountId, now]);
  const groups = new Map<number, RoutingGroupView>();
  for (const row of result.rows) {
    const id = Number(row.id);
    const group = groups.get(id) ?? { id, name: row.name, family: row.family, upstreams: [] };
    if (row.protocol !== null && row.models !== null) group.upstreams.push({ protocol: row.protocol, models: row.models });
    groups.set(id, group);
  }
  return [...groups.values()];
}
