/**
 * The operator's routing routes: routing groups, the provider presets and upstream accounts (add,
 * edit, disable, priority and weight, health shared by every API process, a real test call). Every
 * change is audited.
 */
import type { Request, Response } from 'express';
import { parseBody } from '../auth/parse-body';
import { createGroup } from '../process/seed';
import { PROVIDER_PRESETS, UpstreamConfigError, type ProviderPreset } from '../upstream/provider-presets';
import { addUpstream, resolveChange, UpstreamVerificationError, type UpstreamDeps } from './save-upstream';
import type { Dependencies } from '../dependencies';
import type { RelayServices } from '../relay/relay-services';
import type { UpstreamHealth } from '../upstream/upstream-health';
import type { Protocol } from '../ir/protocol';
import { GatewayError } from '../errors/gateway-error';
import { createAuditActorOf } from '../auth/audit-actor';
import { recordAudit } from '../audit/record-audit';
import { createGroupSchema, createUpstreamSchema, updateUpstreamSchema } from './operator-schemas';
import { announceUpstreamsChanged } from '../upstream/announce-upstreams-changed';
import { testUpstreamAccount } from './test-upstream-account';
import { findGroup, listGroups } from '../db/repositories/groups';
import { findUpstreamAccount, updateUpstreamAccount } from '../db/repositories/upstream-accounts';
import { listUpstreams } from './list-upstreams';
import { healthByAccount, presentHealthMinutes, RECENT_MINUTES } from './upstream-health-view';
import { idParam } from './id-param';

export type OperatorUpstreamServices = Pick<RelayServices, 'upstreams' | 'upstreamClient'> & { upstreamHealth: UpstreamHealth };

/** Preset and verification failures as the operator API's 400s, naming the field at fault. */
async function upstreamErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UpstreamConfigError) throw new GatewayError('invalid_request', error.message, { param: error.param });
    if (error instanceof UpstreamVerificationError)
      throw new GatewayError('invalid_request', error.message, { param: VERIFICATION_PARAM[error.reason] });
    throw error;
  }
}

const VERIFICATION_PARAM: Record<UpstreamVerificationError['reason'], string> = {
  credential: 'api_key',
  base_url: 'base_url',
  unreachable: 'base_url',
  upstream_error: 'base_url',
  model_not_listed: 'models',
  model_not_in_catalog: 'models',
};

function presentPreset(preset: ProviderPreset) {
  return {
    object: 'provider',
    name: preset.name,
    label: preset.label,
    protocol: preset.protocol,
    protocols: preset.protocols,
    default_base_url: preset.defaultBaseUrl ?? null,
    credential_header: preset.credentialHeader,
    paths: preset.paths,
    verifies_with: preset.modelList === undefined ? 'minimal_call' : 'model_list',
    default_api_version: preset.defaultApiVersion ?? null,
    example_model: preset.exampleModel,
  };
}

/** The group and upstream routes of the operator router: what every handler shares (dependencies, upstream services, the audit actor). */
export class OperatorUpstreamRoutes {
  private readonly actorOf: ReturnType<typeof createAuditActorOf>;
  private readonly upstreamDeps: UpstreamDeps;

  constructor(
    private readonly deps: Dependencies,
    private readonly services: OperatorUpstreamServices,
  ) {
    this.actorOf = createAuditActorOf(deps);
    this.upstreamDeps = { ...deps, upstreamClient: services.upstreamClient };
  }

  readonly listGroups = async (_req: Request, res: Response): Promise<void> => {
    const groups = await listGroups(this.deps.db);
    res.json({ object: 'list', data: groups.map((group) => ({ object: 'routing_group', ...group })) });
  };

  readonly createGroup = async (req: Request, res: Response): Promise<void> => {
    const input = parseBody(createGroupSchema, req.body);
    try {
      // Public unless said otherwise (as every group before grants existed); a tenant's own group is created private.
      const visibility = input.visibility ?? 'public';
      const id = await createGroup(this.deps.db, { name: input.name, family: input.family ?? null, visibility });
      await recordAudit(this.deps.db, this.actorOf(req, res), {
        accountId: null,
        action: 'group.create',
        targetType: 'routing_group',
        targetId: id,
        after: { name: input.name, family: input.family ?? null, visibility },
      });
      res.status(201).json({ object: 'routing_group', id: Number(id), visibility });
    } catch (error) {
      if ((error as { code?: string }).code === '23505')
        throw new GatewayError('conflict', 'a routing group with this name exists', { param: 'name' });
      throw error;
    }
  };

  /** Health as every API process shares it: cooldowns now, failures of the last few minutes by reason. */
  readonly listUpstreams = async (_req: Request, res: Response): Promise<void> => {
    const [health, rows] = await Promise.all([healthByAccount(this.services.upstreamHealth), listUpstreams(this.deps.db)]);
    res.json({
      object: 'list',
      data: rows.map((row) => {
        const { coolingDownUntil: until, recentFailures, recentReasons } = health(row.id);
        return {
          ...row,
          cooling_down_until: until === undefined ? null : new Date(until).toISOString(),
          healthy: row.status === 'active' && until === undefined,
          recent_failures: recentFailures,
          recent_failure_reasons: recentReasons,
          recent_minutes: RECENT_MINUTES,
        };
      }),
    });
  };

  /** Upstream failures minute by minute over the last `minutes` (1 to 1440, default 60), per account and reason. */
  readonly upstreamHealth = async (req: Request, res: Response): Promise<void> => {
    const raw = typeof req.query.minutes === 'string' ? req.query.minutes : '60';
    const minutes = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(minutes >= 1 && minutes <= 1440))
      throw new GatewayError('invalid_request', 'minutes: must be an integer from 1 to 1440', { param: 'minutes' });
    const health = this.services.upstreamHealth;
    const [cooldowns, history] = await Promise.all([health.sharedCooldowns(), health.history(minutes)]);
    res.json({
      object: 'upstream_health',
      cooling_down: cooldowns.map((c) => ({ upstream_account_id: c.accountId, until: new Date(c.coolingDownUntil).toISOString() })),
      minutes: presentHealthMinutes(history),
    });
  };

  readonly listProviders = (_req: Request, res: Response): void => {
    res.json({ object: 'list', data: PROVIDER_PRESETS.map(presentPreset) });
  };

  readonly addUpstream = async (req: Request, res: Response): Promise<void> => {
    const input = parseBody(createUpstreamSchema, req.body);
    if (!(await findGroup(this.deps.db, input.group_id)))
      throw new GatewayError('invalid_request', 'group_id: no routing group with this id', { param: 'group_id' });
    const saved = await upstreamErrors(() =>
      addUpstream(this.upstreamDeps, {
        groupId: input.group_id,
        name: input.name,
        provider: input.provider,
        protocol: input.protocol,
        baseUrl: input.base_url,
        apiVersion: input.api_version,
        apiKey: input.api_key,
        models: input.models,
        priority: input.priority,
        weight: input.weight,
        verify: input.verify !== false,
      }),
    );
    this.services.upstreams.invalidate();
    await recordAudit(this.deps.db, this.actorOf(req, res), {
      accountId: null,
      action: 'upstream.create',
      targetType: 'upstream_account',
      targetId: Number(saved.id),
      after: input,
    });
    res.status(201).json({
      object: 'upstream_account',
      id: Number(saved.id),
      provider: saved.upstream.provider ?? null,
      protocol: saved.upstream.protocol,
      base_url: saved.upstream.baseUrl,
      api_version: saved.upstream.apiVersion ?? null,
      normalized: saved.upstream.notes,
      verification: saved.probe
        ? { ok: true, method: saved.probe.method, detail: saved.probe.detail }
        : { ok: null, detail: 'not verified (verify: false)' },
    });
  };

  readonly updateUpstream = async (req: Request, res: Response): Promise<void> => {
    const deps = this.deps;
    const id = idParam(req, 'upstream account');
    const input = parseBody(updateUpstreamSchema, req.body);
    const stored = await findUpstreamAccount<Protocol>(deps.db, id);
    if (!stored) throw new GatewayError('not_found', 'upstream account not found');
    const before = {
      name: stored.name,
      base_url: stored.baseUrl,
      api_version: stored.apiVersion,
      models: stored.models,
      priority: stored.priority,
      weight: stored.weight,
      status: stored.status,
    };
    const changed = await upstreamErrors(() =>
      resolveChange(this.upstreamDeps, stored, {
        baseUrl: input.base_url,
        apiVersion: input.api_version,
        apiKey: input.api_key,
        models: input.models,
        verify: input.verify !== false,
      }),
    );
    // A changed base URL or api-version is saved as resolved (normalised), never as given.
    const { relocated } = changed;
    const updated = await updateUpstreamAccount(deps.db, id, {
      name: input.name,
      baseUrl: relocated ? changed.upstream.baseUrl : undefined,
      apiVersion: relocated ? changed.upstream.apiVersion : undefined,
      credentialEncrypted: input.api_key === undefined ? undefined : deps.crypto.encrypt(input.api_key),
      models: input.models,
      priority: input.priority,
      weight: input.weight,
      status: input.status,
    });
    if (!updated) throw new GatewayError('not_found', 'upstream account not found');
    this.services.upstreams.invalidate();
    // The credential itself never enters the log: only that it changed.
    const after = { ...input, ...(input.api_key === undefined ? {} : { credential_changed: true }) };
    await recordAudit(deps.db, this.actorOf(req, res), {
      accountId: null,
      action: 'upstream.update',
      targetType: 'upstream_account',
      targetId: id,
      before,
      after,
    });
    await announceUpstreamsChanged(deps.redis, deps.redisKeys);
    res.json({
      object: 'upstream_account',
      id,
      updated: true,
      base_url: changed.upstream.baseUrl,
      api_version: changed.upstream.apiVersion ?? null,
      normalized: changed.upstream.notes,
      verification: changed.probe
        ? { ok: true, method: changed.probe.method, detail: changed.probe.detail }
        : { ok: null, detail: input.verify === false ? 'not verified (verify: false)' : 'not verified (no connection change)' },
    });
  };

  /** A real call through the upstream account. */
  readonly testUpstream = async (req: Request, res: Response): Promise<void> => {
    res.json(await testUpstreamAccount(this.deps, this.services, idParam(req, 'upstream account')));
  };
}
