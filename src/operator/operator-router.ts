/**
 * The operator API under `/api/v1/operator` (console operators only): accounts (create, tier,
 * concurrency, top-up and adjustment with a reason), routing groups and upstream accounts (add,
 * edit, disable, priority and weight, health shared by every API process, a real test call), group
 * grants (operator-grants-router.ts) and the catalog (operator-catalog-router.ts). Every change is audited.
 */
import express, { type Request, type Router } from 'express';
import { concurrencyCap } from '../auth/concurrency-cap';
import { managementPrincipal } from '../auth/management-auth';
import { parseBody } from '../auth/parse-body';
import { creditsToUsd } from '../account/credits-to-usd';
import { createAccount, createGroup } from '../process/seed';
import { PROVIDER_PRESETS, UpstreamConfigError, type ProviderPreset } from '../upstream/provider-presets';
import { addUpstream, resolveChange, UpstreamVerificationError } from './save-upstream';
import type { Dependencies } from '../dependencies';
import type { RelayServices } from '../relay/relay-services';
import type { UpstreamHealth } from '../upstream/upstream-health';
import { GatewayError } from '../errors/gateway-error';
import { createAuditActorOf } from '../auth/audit-actor';
import { recordAudit } from '../audit/record-audit';
import { applyOperatorEntry } from './apply-operator-entry';
import { createRequireOperator } from './operator-auth';
import { createOperatorCatalogRouter } from './operator-catalog-router';
import { createOperatorGrantsRouter } from './operator-grants-router';
import { createOperatorAuditRouter } from '../account/audit-router';
import {
  createAccountSchema, createGroupSchema, createUpstreamSchema, ledgerEntrySchema, updateAccountSchema, updateUpstreamSchema,
} from './operator-schemas';
import { announceUpstreamsChanged } from '../upstream/announce-upstreams-changed';
import { testUpstreamAccount } from './test-upstream-account';
import { accountExists, findAccount, listAccounts, updateAccount } from '../db/repositories/accounts';
import { findGroup, listGroups } from '../db/repositories/groups';
import { findUpstreamAccount, updateUpstreamAccount } from '../db/repositories/upstream-accounts';
import { listUpstreams } from './list-upstreams';
import { healthByAccount, presentHealthMinutes, RECENT_MINUTES } from './upstream-health-view';

function idParam(req: Request, what: string): number {
  const raw = req.params.id;
  if (typeof raw !== 'string' || !/^[1-9][0-9]{0,15}$/.test(raw)) throw new GatewayError('not_found', `${what} not found`);
  return Number(raw);
}

function toCredits(usd: number): number {
  return Math.round(usd * 1_000_000);
}

/** Preset and verification failures as the operator API's 400s, naming the field at fault. */
async function upstreamErrors<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof UpstreamConfigError) throw new GatewayError('invalid_request', error.message, { param: error.param });
    if (error instanceof UpstreamVerificationError) throw new GatewayError('invalid_request', error.message, { param: VERIFICATION_PARAM[error.reason] });
    throw error;
  }
}

const VERIFICATION_PARAM: Record<UpstreamVerificationError['reason'], string> = {
  credential: 'api_key', base_url: 'base_url', unreachable: 'base_url', upstream_error: 'base_url', model_not_listed: 'models', model_not_in_catalog: 'models',
};

function presentPreset(preset: ProviderPreset) {
  return {
    object: 'provider', name: preset.name, label: preset.label, protocol: preset.protocol, protocols: preset.protocols,
    default_base_url: preset.defaultBaseUrl ?? null, credential_header: preset.credentialHeader, paths: preset.paths,
    verifies_with: preset.modelList === undefined ? 'minimal_call' : 'model_list', default_api_version: preset.defaultApiVersion ?? null,
    example_model: preset.exampleModel,
  };
}

export function createOperatorRouter(deps: Dependencies, services: Pick<RelayServices, 'upstreams' | 'upstreamClient'> & { upstreamHealth: UpstreamHealth }): Router {
  const router = express.Router();
  const upstreamDeps = { ...deps, upstreamClient: services.upstreamClient };
  router.use('/api/v1/operator', createRequireOperator(deps));
  const actorOf = createAuditActorOf(deps);

  router.get('/api/v1/operator/me', (_req, res) => {
    res.json({ object: 'operator', user_id: managementPrincipal(res).userId });
  });

  router.get('/api/v1/operator/accounts', async (_req, res) => {
    const rows = await listAccounts(deps.db);
    res.json({
      object: 'list',
      data: rows.map((row) => ({
        object: 'account', id: row.id, name: row.name, kind: row.kind, tier: row.tier,
        concurrency_cap: concurrencyCap(row.tier, row.concurrencyCap), custom_concurrency_cap: row.concurrencyCap,
        balance: creditsToUsd(row.balanceCredits), balance_credits: row.balanceCredits, held: creditsToUsd(row.heldCredits),
        keys: row.keys, users: row.users, created_at: row.createdAt.toISOString(),
      })),
    });
  });

  router.post('/api/v1/operator/accounts', async (req, res) => {
    const input = parseBody(createAccountSchema, req.body);
    const id = await createAccount(deps.db, { name: input.name, tier: input.tier, concurrencyCap: input.concurrency_cap ?? null, organization: input.organization });
    await recordAudit(deps.db, actorOf(req, res), { accountId: Number(id), action: 'account.create', targetType: 'account', targetId: id, after: input });
    res.status(201).json({ object: 'account', id: Number(id) });
  });

  router.patch('/api/v1/operator/accounts/:id', async (req, res) => {
    const id = idParam(req, 'account');
    const input = parseBody(updateAccountSchema, req.body);
    const account = await findAccount(deps.db, id);
    const before = account ? { tier: account.tier, concurrency_cap: account.concurrencyCap } : null;
    if (!(await updateAccount(deps.db, id, { tier: input.tier, concurrencyCap: input.concurrency_cap }))) throw new GatewayError('not_found', 'account not found');
    await recordAudit(deps.db, actorOf(req, res), { accountId: id, action: 'account.update', targetType: 'account', targetId: id, before, after: input });
    res.json({ object: 'account', id, updated: true });
  });

  router.post('/api/v1/operator/accounts/:id/ledger', async (req, res) => {
    const id = idParam(req, 'account');
    const input = parseBody(ledgerEntrySchema, req.body);
    if (!(await accountExists(deps.db, id))) throw new GatewayError('not_found', 'account not found');
    const result = await applyOperatorEntry(deps, {
      accountId: id, kind: input.kind, credits: toCredits(input.amount), reason: input.reason, operatorUserId: managementPrincipal(res).userId ?? 0,
    });
    await recordAudit(deps.db, actorOf(req, res), {
      accountId: id, action: `money.${input.kind}`, targetType: 'ledger_entry', targetId: result.entryId,
      after: { kind: input.kind, amount_credits: toCredits(input.amount), reason: input.reason, balance_after_credits: result.balanceCredits },
    });
    res.status(201).json({
      object: 'billing_transaction', id: result.entryId, account_id: id, kind: input.kind, amount: input.amount,
      balance_after: creditsToUsd(result.balanceCredits), balance_after_credits: result.balanceCredits,
    });
  });

  router.get('/api/v1/operator/groups', async (_req, res) => {
    const groups = await listGroups(deps.db);
    res.json({ object: 'list', data: groups.map((group) => ({ object: 'routing_group', ...group })) });
  });

  router.post('/api/v1/operator/groups', async (req, res) => {
    const input = parseBody(createGroupSchema, req.body);
    try {
      // Public unless said otherwise (as every group before grants existed); a tenant's own group is created private.
      const visibility = input.visibility ?? 'public';
      const id = await createGroup(deps.db, { name: input.name, family: input.family ?? null, visibility });
      await recordAudit(deps.db, actorOf(req, res), { accountId: null, action: 'group.create', targetType: 'routing_group', targetId: id, after: { name: input.name, family: input.family ?? null, visibility } });
      res.status(201).json({ object: 'routing_group', id: Number(id), visibility });
    } catch (error) {
      if ((error as { code?: string }).code === '23505') throw new GatewayError('conflict', 'a routing group with this name exists', { param: 'name' });
      throw error;
    }
  });

  /** Health as every API process shares it: cooldowns now, failures of the last few minutes by reason. */
  router.get('/api/v1/operator/upstreams', async (_req, res) => {
    const [health, rows] = await Promise.all([healthByAccount(services.upstreamHealth), listUpstreams(deps.db)]);
    res.json({
      object: 'list',
      data: rows.map((row) => {
        const { coolingDownUntil: until, recentFailures, recentReasons } = health(row.id);
        return {
          ...row, cooling_down_until: until === undefined ? null : new Date(until).toISOString(), healthy: row.status === 'active' && until === undefined,
          recent_failures: recentFailures, recent_failure_reasons: recentReasons, recent_minutes: RECENT_MINUTES,
        };
      }),
    });
  });

  /** Upstream failures minute by minute over the last `minutes` (1 to 1440, default 60), per account and reason. */
  router.get('/api/v1/operator/upstream-health', async (req, res) => {
    const raw = typeof req.query.minutes === 'string' ? req.query.minutes : '60';
    const minutes = /^\d{1,4}$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(minutes >= 1 && minutes <= 1440)) throw new GatewayError('invalid_request', 'minutes: must be an integer from 1 to 1440', { param: 'minutes' });
    const [cooldowns, history] = await Promise.all([services.upstreamHealth.sharedCooldowns(), services.upstreamHealth.history(minutes)]);
    res.json({
      object: 'upstream_health',
      cooling_down: cooldowns.map((c) => ({ upstream_account_id: c.accountId, until: new Date(c.coolingDownUntil).toISOString() })),
      minutes: presentHealthMinutes(history),
    });
  });

  router.get('/api/v1/operator/providers', (_req, res) => {
    res.json({ object: 'list', data: PROVIDER_PRESETS.map(presentPreset) });
  });

  router.post('/api/v1/operator/upstreams', async (req, res) => {
    const input = parseBody(createUpstreamSchema, req.body);
    if (!(await findGroup(deps.db, input.group_id))) throw new GatewayError('invalid_request', 'group_id: no routing group with this id', { param: 'group_id' });
    const saved = await upstreamErrors(() => addUpstream(upstreamDeps, {
      groupId: input.group_id, name: input.name, provider: input.provider, protocol: input.protocol, baseUrl: input.base_url,
      apiVersion: input.api_version, apiKey: input.api_key, models: input.models, priority: input.priority, weight: input.weight, verify: input.verify !== false,
    }));
    services.upstreams.invalidate();
    await recordAudit(deps.db, actorOf(req, res), { accountId: null, action: 'upstream.create', targetType: 'upstream_account', targetId: Number(saved.id), after: input });
    res.status(201).json({
      object: 'upstream_account', id: Number(saved.id), provider: saved.upstream.provider ?? null, protocol: saved.upstream.protocol,
      base_url: saved.upstream.baseUrl, api_version: saved.upstream.apiVersion ?? null, normalized: saved.upstream.notes,
      verification: saved.probe ? { ok: true, method: saved.probe.method, detail: saved.probe.detail } : { ok: null, detail: 'not verified (verify: false)' },
    });
  });

  router.patch('/api/v1/operator/upstreams/:id', async (req, res) => {
    const id = idParam(req, 'upstream account');
    const input = parseBody(updateUpstreamSchema, req.body);
    const stored = await findUpstreamAccount(deps.db, id);
    const before = stored
      ? { name: stored.name, base_url: stored.baseUrl, api_version: stored.apiVersion, models: stored.models, priority: stored.priority, weight: stored.weight, status: stored.status }
      : null;
    const changed = await upstreamErrors(() => resolveChange(upstreamDeps, id, {
      baseUrl: input.base_url, apiVersion: input.api_version, apiKey: input.api_key, models: input.models, verify: input.verify !== false,
    }));
    if (!changed) throw new GatewayError('not_found', 'upstream account not found');
    // A changed base URL or api-version is saved as resolved (normalised), never as given.
    const relocated = input.base_url !== undefined || input.api_version !== undefined;
    const updated = await updateUpstreamAccount(deps.db, id, {
      name: input.name, baseUrl: relocated ? changed.upstream.baseUrl : undefined, apiVersion: relocated ? changed.upstream.apiVersion : undefined,
      credentialEncrypted: input.api_key === undefined ? undefined : deps.crypto.encrypt(input.api_key), models: input.models, priority: input.priority, weight: input.weight, status: input.status,
    });
    if (!updated) throw new GatewayError('not_found', 'upstream account not found');
    services.upstreams.invalidate();
    // The credential itself never enters the log: only that it changed.
    const after = { ...input, ...(input.api_key === undefined ? {} : { credential_changed: true }) };
    await recordAudit(deps.db, actorOf(req, res), { accountId: null, action: 'upstream.update', targetType: 'upstream_account', targetId: id, before, after });
    await announceUpstreamsChanged(deps.redis, deps.redisKeys);
    res.json({
      object: 'upstream_account', id, updated: true, base_url: changed.upstream.baseUrl, api_version: changed.upstream.apiVersion ?? null,
      normalized: changed.upstream.notes,
      verification: changed.probe ? { ok: true, method: changed.probe.method, detail: changed.probe.detail }
        : { ok: null, detail: input.verify === false ? 'not verified (verify: false)' : 'not verified (no connection change)' },
    });
  });

  router.post('/api/v1/operator/upstreams/:id/test', async (req, res) => {
    res.json(await testUpstreamAccount(deps, services, idParam(req, 'upstream account')));
  });

  router.use(createOperatorGrantsRouter(deps));
  router.use(createOperatorAuditRouter(deps));
  router.use(createOperatorCatalogRouter(deps));

  return router;
}
