/**
 * Adding and changing upstream accounts, shared by the operator API and the admin CLI: the preset
 * (or protocol) and base URL are resolved and normalised, the account is verified against the
 * provider unless the operator says not to (probe-upstream.ts), saved, its check recorded, and the
 * change announced so every API process reloads its list.
 */
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import type { SecretCrypto } from '../auth/secret-crypto';
import type { Catalog } from '../catalog/catalog';
import { findUpstreamAccount, recordUpstreamCheck, type UpstreamAccountRow } from '../db/repositories/upstream-accounts';
import type { Clock } from '../dependencies';
import type { Protocol } from '../ir/protocol';
import { addUpstreamAccount } from '../process/seed';
import type { RedisKeys } from '../redis/keys';
import { announceUpstreamsChanged } from '../upstream/announce-upstreams-changed';
import { findPreset, resolveUpstream, type ResolvedUpstream } from '../upstream/provider-presets';
import type { UpstreamClient } from '../upstream/upstream-client';
import { probeUpstream, type ProbeCause, type ProbeResult } from './probe-upstream';

export interface UpstreamDeps {
  db: Pool;
  crypto: SecretCrypto;
  catalog: Catalog;
  clock: Clock;
  redis: Redis;
  redisKeys: RedisKeys;
  upstreamClient: UpstreamClient;
}

export class UpstreamVerificationError extends Error {
  constructor(
    readonly reason: ProbeCause,
    message: string,
  ) {
    super(`verification failed: ${message}`);
    this.name = 'UpstreamVerificationError';
  }
}

export interface NewUpstream {
  groupId: number;
  name?: string;
  provider?: string;
  protocol?: Protocol;
  baseUrl?: string;
  apiVersion?: string;
  apiKey: string;
  models: string[];
  priority?: number;
  weight?: number;
  /** false: save without asking the provider (`--no-verify`). */
  verify: boolean;
}

export interface SavedUpstream {
  id: number;
  upstream: ResolvedUpstream;
  probe?: ProbeResult & { ok: true };
}

async function verified(
  deps: UpstreamDeps,
  upstream: ResolvedUpstream,
  credential: string,
  models: string[],
): Promise<ProbeResult & { ok: true }> {
  const probe = await probeUpstream(deps.upstreamClient, deps.catalog, deps.clock, { upstream, credential, models });
  if (!probe.ok) throw new UpstreamVerificationError(probe.cause, probe.message);
  return probe;
}

export async function addUpstream(deps: UpstreamDeps, input: NewUpstream): Promise<SavedUpstream> {
  const upstream = resolveUpstream({
    provider: input.provider,
    protocol: input.protocol,
    baseUrl: input.baseUrl,
    apiVersion: input.apiVersion,
  });
  const probe = input.verify ? await verified(deps, upstream, input.apiKey, input.models) : undefined;
  const id = await addUpstreamAccount(deps.db, deps.crypto, {
    groupId: input.groupId,
    name: input.name,
    protocol: upstream.protocol,
    baseUrl: upstream.baseUrl,
    apiKey: input.apiKey,
    models: input.models,
    priority: input.priority,
    weight: input.weight,
    provider: upstream.provider,
    apiVersion: upstream.apiVersion,
  });
  if (probe) await recordCheck(deps.db, id, probe);
  await announceUpstreamsChanged(deps.redis, deps.redisKeys);
  return { id, upstream, probe };
}

export interface StoredUpstream {
  upstream: ResolvedUpstream;
  credential: string;
  models: string[];
}

/** A stored account's connection as resolved: accounts of no preset (added by protocol, or the bootstrap's simulator) follow their protocol's conventions. */
function resolvedOf(row: UpstreamAccountRow<Protocol>): ResolvedUpstream {
  return resolveUpstream({
    provider: findPreset(row.provider ?? undefined)?.name,
    protocol: row.protocol,
    baseUrl: row.baseUrl,
    apiVersion: row.apiVersion ?? undefined,
  });
}

export async function loadStoredUpstream(deps: Pick<UpstreamDeps, 'db' | 'crypto'>, id: number): Promise<StoredUpstream | undefined> {
  const row = await findUpstreamAccount<Protocol>(deps.db, id);
  if (!row) return undefined;
  return { upstream: resolvedOf(row), credential: deps.crypto.decrypt(row.credentialEncrypted), models: row.models };
}

export interface UpstreamChange {
  baseUrl?: string;
  apiVersion?: string;
  apiKey?: string;
  models?: string[];
  /** false: save without asking the provider. */
  verify: boolean;
}

export interface ChangedUpstream {
  upstream: ResolvedUpstream;
  /** The base URL or api-version changed: `upstream` holds them resolved (normalised), to be saved so. */
  relocated: boolean;
  probe?: ProbeResult & { ok: true };
}

/**
 * The stored account (the caller's row) as changed, resolved as an add is: a new base URL
 * normalised by the account's preset (an api-version pasted in it kept), verified before the change
 * is saved unless the operator says not to. The credential is decrypted only for that probe. The
 * caller saves the change.
 */
export async function resolveChange(
  deps: UpstreamDeps,
  row: UpstreamAccountRow<Protocol>,
  change: UpstreamChange,
): Promise<ChangedUpstream> {
  const stored = resolvedOf(row);
  const relocated = change.baseUrl !== undefined || change.apiVersion !== undefined;
  const upstream = relocated
    ? resolveUpstream({
        provider: stored.provider,
        protocol: stored.protocol,
        baseUrl: change.baseUrl ?? stored.baseUrl,
        apiVersion: change.apiVersion,
        keptApiVersion: stored.apiVersion,
      })
    : { ...stored, notes: [] };
  const changesConnection = relocated || change.apiKey !== undefined || change.models !== undefined;
  if (!change.verify || !changesConnection) return { upstream, relocated };
  const credential = change.apiKey ?? deps.crypto.decrypt(row.credentialEncrypted);
  const probe = await verified(deps, upstream, credential, change.models ?? row.models);
  await recordCheck(deps.db, row.id, probe);
  return { upstream, relocated, probe };
}

/** The probe of a stored account (Test button, `upstream test`), recorded as its last check. */
export async function checkStoredUpstream(deps: UpstreamDeps, id: number): Promise<ProbeResult | undefined> {
  const stored = await loadStoredUpstream(deps, id);
  if (!stored) return undefined;
  const probe = await probeUpstream(deps.upstreamClient, deps.catalog, deps.clock, stored);
  await recordCheck(deps.db, id, probe);
  return probe;
}

export async function recordCheck(db: Pool, id: number, probe: ProbeResult): Promise<void> {
  await recordUpstreamCheck(db, id, { ok: probe.ok, message: probe.ok ? probe.detail : probe.message });
}
