import type { UpstreamAccountRow } from '../db/repositories/upstream-accounts';
import type { Protocol } from '../ir/protocol';

/** An upstream provider account of a routing group, with its decrypted credential (in memory only). */
export interface UpstreamAccount {
  id: number;
  groupId: number;
  name: string;
  protocol: Protocol;
  baseUrl: string;
  credential: string;
  /** Catalog slugs served; `*` serves every model of the protocol. */
  models: string[];
  priority: number;
  weight: number;
  /** The provider preset (src/upstream/provider-presets.ts); unset: the protocol's own paths and credential header. */
  provider?: string;
  /** Azure OpenAI's `api-version` query. */
  apiVersion?: string;
}

/** The account a stored row describes, with its credential already decrypted. */
export function upstreamAccountOf(row: UpstreamAccountRow<Protocol>, credential: string): UpstreamAccount {
  return {
    id: row.id,
    groupId: row.groupId,
    name: row.name,
    protocol: row.protocol,
    baseUrl: row.baseUrl,
    credential,
    models: row.models,
    priority: row.priority,
    weight: row.weight,
    provider: row.provider ?? undefined,
    apiVersion: row.apiVersion ?? undefined,
  };
}
