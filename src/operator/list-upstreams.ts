/** The upstream accounts as the operator page and `admin upstream list` show them: health of the last verification, traffic. */
import type { Pool } from 'pg';
import { listUpstreamSummaries } from '../db/repositories/upstream-accounts';

export interface UpstreamListing {
  object: 'upstream_account';
  id: number;
  group_id: number;
  group_name: string;
  name: string;
  protocol: string;
  base_url: string;
  models: string[];
  priority: number;
  weight: number;
  status: string;
  requests_24h: number;
  last_used_at: string | null;
  created_at: string;
  provider: string | null;
  api_version: string | null;
  /** The last verification (add, change, Test): when, whether it passed, what it said. */
  last_check: { at: string; ok: boolean; message: string | null } | null;
}

export async function listUpstreams(db: Pool): Promise<UpstreamListing[]> {
  return (await listUpstreamSummaries(db)).map((row) => ({
    object: 'upstream_account',
    id: row.id,
    group_id: row.groupId,
    group_name: row.groupName,
    name: row.name,
    protocol: row.protocol,
    base_url: row.baseUrl,
    models: row.models,
    priority: row.priority,
    weight: row.weight,
    status: row.status,
    requests_24h: row.requests24h,
    last_used_at: row.lastUsedAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
    provider: row.provider,
    api_version: row.apiVersion,
    last_check: row.lastCheck ? { at: row.lastCheck.at.toISOString(), ok: row.lastCheck.ok, message: row.lastCheck.message } : null,
  }));
}
