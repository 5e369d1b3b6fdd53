/**
 * `upstream …`: connect provider accounts to routing groups by preset, verified before they are
 * saved; list them with their health; test, disable and enable them. Every change reaches the
 * running API processes at once (announced on Redis).
 */
import { listActiveUpstreamIds, updateUpstreamAccount } from '../../src/db/repositories/upstream-accounts';
import { isProtocol, PROTOCOLS } from '../../src/ir/protocol';
import { listUpstreams } from '../../src/operator/list-upstreams';
import { addUpstream, checkStoredUpstream, UpstreamVerificationError } from '../../src/operator/save-upstream';
import { announceUpstreamsChanged } from '../../src/upstream/announce-upstreams-changed';
import { PROVIDER_NAMES, PROVIDER_PRESETS, resolveUpstream, UpstreamConfigError } from '../../src/upstream/provider-presets';
import { AdminError, id, list, requiredText, text, UsageError, wholeNumber, type AdminCommand, type AdminContext } from './cli';
import { requireGroup } from './lookups';

async function setStatus(context: AdminContext, raw: string, status: 'active' | 'disabled'): Promise<void> {
  const upstreamId = id(raw, '<id>');
  if (!(await updateUpstreamAccount(await context.db(), upstreamId, { status })))
    throw new AdminError(`upstream account ${upstreamId} does not exist (npm run admin -- upstream list)`);
  await announceUpstreamsChanged(context.redis(), context.redisKeys());
  context.print({ id: upstreamId, status }, `upstream account ${upstreamId} ${status === 'active' ? 'enabled' : 'disabled'}`);
}

export const UPSTREAM_COMMANDS: AdminCommand[] = [
  {
    name: 'upstream add',
    summary: 'connect a provider account to a routing group (verified with the provider first)',
    audit: { action: 'upstream.create', targetType: 'upstream_account' },
    flags: {
      group: { value: 'GROUP', required: true, help: 'routing group name or id' },
      provider: { value: 'PROVIDER', help: `a preset: ${PROVIDER_NAMES.join(', ')}` },
      protocol: {
        value: 'PROTOCOL',
        help: `${PROTOCOLS.join(', ')}: without --provider, any server of that protocol; with it, one of the provider's`,
      },
      'base-url': { value: 'URL', help: "the provider's base URL (default: the preset's); with or without its version segment" },
      'api-key': { value: 'KEY', required: true, help: 'the provider credential (stored encrypted)' },
      'api-version': { value: 'VERSION', help: 'azure-openai only: the api-version query (default 2024-10-21)' },
      models: {
        value: 'M1,M2',
        required: true,
        help: 'catalog models it serves (azure-openai: each is a deployment name), or * for every model of its protocol',
      },
      name: { value: 'NAME', help: 'a name for listings' },
      priority: { value: 'N', help: 'lower runs first (default 0)' },
      weight: { value: 'N', help: 'share of traffic within a priority (default 1)' },
      'no-verify': { help: 'save without asking the provider' },
    },
    notes: [
      'examples:',
      '  upstream add --group default --provider openai --api-key sk-… --models gpt-4.1,gpt-5',
      '  upstream add --group default --provider azure-openai --base-url https://RESOURCE.openai.azure.com --api-key … --models gpt-4.1',
      '  upstream add --group default --provider openai-compatible --base-url http://vllm:8000/v1 --api-key none --models llama-3.3-70b',
    ],
    async run(context, { flags }) {
      const protocol = text(flags, 'protocol');
      if (protocol !== undefined && !isProtocol(protocol))
        throw new UsageError(`--protocol must be ${PROTOCOLS.join(', ')}, not "${protocol}"`);
      if (protocol === undefined && flags.provider === undefined)
        throw new UsageError(`upstream add: name --provider (${PROVIDER_NAMES.join(', ')}) or --protocol`);
      const models = list(requiredText(flags, 'models'));
      if (models.length === 0) throw new UsageError('--models must name at least one model, or *');
      const priority = text(flags, 'priority');
      const weight = text(flags, 'weight');
      const input = {
        provider: text(flags, 'provider'),
        protocol,
        baseUrl: text(flags, 'base-url'),
        apiVersion: text(flags, 'api-version'),
        apiKey: requiredText(flags, 'api-key'),
        models,
        name: text(flags, 'name'),
        priority: priority === undefined ? undefined : wholeNumber(priority, 'priority', { min: -1000, max: 1000 }),
        weight: weight === undefined ? undefined : wholeNumber(weight, 'weight', { min: 1, max: 1000 }),
        verify: flags['no-verify'] !== true,
      };
      try {
        resolveUpstream(input); // a bad preset, base URL or api-version is a usage error, told before any connection
        const groupId = await requireGroup(context, requiredText(flags, 'group'));
        const saved = await addUpstream(await context.upstreamDeps(), { ...input, groupId });
        const { upstream } = saved;
        for (const note of upstream.notes) if (!context.json) console.log(`base URL: ${note}`);
        context.print(
          {
            id: saved.id,
            provider: upstream.provider ?? null,
            protocol: upstream.protocol,
            base_url: upstream.baseUrl,
            api_version: upstream.apiVersion ?? null,
            normalized: upstream.notes,
            verified: saved.probe !== undefined,
          },
          `upstream account ${saved.id} added (${upstream.provider ?? upstream.protocol} at ${upstream.baseUrl}${upstream.apiVersion ? `, api-version ${upstream.apiVersion}` : ''}; ${saved.probe ? `verified: ${saved.probe.detail}` : 'not verified'})`,
        );
      } catch (error) {
        if (error instanceof UpstreamConfigError) throw new UsageError(`upstream add: ${error.message}`);
        if (error instanceof UpstreamVerificationError)
          throw new AdminError(`upstream add: ${error.message} (nothing saved; --no-verify saves anyway)`);
        throw error;
      }
    },
  },
  {
    name: 'upstream list',
    summary: 'list upstream accounts with their health (last verification, traffic)',
    flags: { check: { help: 'verify every active account now (asks each provider; not billed)' } },
    async run(context, { flags }) {
      if (flags.check === true) {
        const deps = await context.upstreamDeps();
        for (const upstreamId of await listActiveUpstreamIds(deps.db)) await checkStoredUpstream(deps, upstreamId);
      }
      const upstreams = await listUpstreams(await context.db());
      context.print(
        { upstreams },
        upstreams
          .map((u) => {
            const health =
              u.status !== 'active'
                ? 'disabled'
                : u.last_check === null
                  ? 'not checked yet'
                  : `${u.last_check.ok ? 'ok' : 'FAILING'} at ${u.last_check.at}${u.last_check.ok ? '' : `: ${u.last_check.message}`}`;
            return `${u.id}  ${u.group_name}  ${u.name}  ${u.provider ?? u.protocol}  ${u.base_url}  models ${u.models.join(',')}  p${u.priority} w${u.weight}\n    health: ${health}; ${u.requests_24h} requests in 24 h, last ${u.last_used_at ?? 'never'}`;
          })
          .join('\n') || 'no upstream accounts',
      );
    },
  },
  {
    name: 'upstream test',
    summary: 'verify one upstream account with its provider now (not billed)',
    args: [{ name: 'id', help: 'upstream account id' }],
    async run(context, { args }) {
      const upstreamId = id(args[0], '<id>');
      const probe = await checkStoredUpstream(await context.upstreamDeps(), upstreamId);
      if (probe === undefined) throw new AdminError(`upstream account ${upstreamId} does not exist (npm run admin -- upstream list)`);
      if (!probe.ok) throw new AdminError(`upstream account ${upstreamId}: ${probe.message}`);
      context.print(
        { id: upstreamId, ok: true, method: probe.method, detail: probe.detail },
        `upstream account ${upstreamId}: ok (${probe.detail})`,
      );
    },
  },
  {
    name: 'upstream disable',
    summary: 'stop routing to an upstream account',
    args: [{ name: 'id', help: 'upstream account id' }],
    audit: { action: 'upstream.update', targetType: 'upstream_account' },
    run: (context, { args }) => setStatus(context, args[0], 'disabled'),
  },
  {
    name: 'upstream enable',
    summary: 'route to an upstream account again',
    args: [{ name: 'id', help: 'upstream account id' }],
    audit: { action: 'upstream.update', targetType: 'upstream_account' },
    run: (context, { args }) => setStatus(context, args[0], 'active'),
  },
  {
    name: 'upstream providers',
    summary: 'list the provider presets',
    async run(context) {
      context.print(
        { providers: PROVIDER_PRESETS },
        PROVIDER_PRESETS.map(
          (p) =>
            `${p.name.padEnd(18)} ${p.protocols.join('/').padEnd(18)} ${p.defaultBaseUrl ?? '(base URL required)'}  credential: ${p.credentialHeader}`,
        ).join('\n'),
      );
    },
  },
];
