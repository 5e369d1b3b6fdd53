/**
 * The routing groups of an account's usable keys (active, unexpired, in a group the account may
 * use) with their active upstream accounts, and the model allowlists of those keys per group. With
 * `keyId` (a caller authenticated by key) that key's allowlist also applies: it sees what it may call.
 */
import type { Pool } from 'pg';
import { compileModelAllowlist } from '../auth/model-allowlist';
import { listUsableKeysOfAccount } from '../db/repositories/api-keys';
import { listGroupsWithActiveUpstreams } from '../db/repositories/groups';
import type { Protocol } from '../ir/protocol';
import type { RoutingGroupView } from './routable-models';

export async function readRoutingGroups(db: Pool, accountId: number, now: Date, keyId?: number): Promise<RoutingGroupView[]> {
  const keys = await listUsableKeysOfAccount(db, accountId, now);
  const caller = compileModelAllowlist(keys.find((key) => key.id === keyId)?.allowedModels ?? []);
  const allowlists = new Map<number, string[][]>();
  for (const key of keys) allowlists.set(key.groupId, [...(allowlists.get(key.groupId) ?? []), key.allowedModels]);
  if (allowlists.size === 0) return [];
  const rows = await listGroupsWithActiveUpstreams<Protocol>(db, [...allowlists.keys()]);
  const groups = new Map<number, RoutingGroupView>();
  for (const row of rows) {
    const id = row.id;
    const lists = (allowlists.get(id) ?? []).map(compileModelAllowlist);
    const group = groups.get(id) ?? {
      id,
      name: row.name,
      family: row.family,
      upstreams: [],
      allows: (model: string) => caller.allows(model) && lists.some((list) => list.allows(model)),
    };
    if (row.protocol !== null && row.models !== null) group.upstreams.push({ protocol: row.protocol, models: row.models });
    groups.set(id, group);
  }
  return [...groups.values()];
}
