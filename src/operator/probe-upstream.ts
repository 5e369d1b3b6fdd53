/**
 * Verification of an upstream account before it is saved (admin CLI, operator API) and from the
 * console's Test button: every model named must be in the catalog; then the provider's model list
 * is read with the account's credential (Azure OpenAI, which has no data-plane list of deployments,
 * gets one minimal call per deployment instead), and each model must be listed. A failure names
 * its cause in the gateway's own words (never the provider's body, which may echo the credential):
 * the credential (401/403), the base URL or path (404, or an answer that is not a model list), the
 * network (refused, DNS, TLS, timeout), a model the provider does not list, a model missing from the
 * catalog. Nothing here is billed.
 */
import type { Catalog } from '../catalog/catalog';
import { createCodecContext } from '../relay/codec-context';
import { dialUpstream, pingPlan } from '../relay/dial-upstream';
import { upstreamHeaders } from '../relay/upstream-headers';
import type { Clock } from '../dependencies';
import { isRecord, parseJson } from '../protocols/shared/read-json';
import type { ResolvedUpstream } from '../upstream/provider-presets';
import { readUpstreamText, type UpstreamClient } from '../upstream/upstream-client';
import { unreachableMessage } from './unreachable-message';

export type ProbeCause = 'credential' | 'base_url' | 'unreachable' | 'model_not_listed' | 'model_not_in_catalog' | 'upstream_error';

export type ProbeResult =
  | { ok: true; method: 'model_list' | 'minimal_call'; checked: string[]; detail: string }
  | { ok: false; cause: ProbeCause; message: string };

const PROBE_TIMEOUT_MS = 15_000;

export interface ProbeInput {
  upstream: ResolvedUpstream;
  credential: string;
  models: string[];
}

export async function probeUpstream(client: UpstreamClient, catalog: Catalog, clock: Clock, input: ProbeInput): Promise<ProbeResult> {
  const named = input.models.filter((m) => m !== '*');
  const missing = named.filter((m) => catalog.find(m) === undefined);
  if (missing.length > 0) {
    return {
      ok: false,
      cause: 'model_not_in_catalog',
      message: `${plural(missing, 'model')} ${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not in the catalog: add ${missing.length > 1 ? 'them' : 'it'} first (admin model add) or name catalog models`,
    };
  }
  // A retired model is no longer routed: whether the provider still lists it does not matter.
  const upstreamNames = named.filter((m) => catalog.find(m)!.retired !== true).map((m) => catalog.find(m)!.upstreamModel ?? m);
  if (input.upstream.preset.modelList === undefined) return probeByCalls(client, catalog, clock, input, named);
  const url = input.upstream.baseUrl + input.upstream.preset.modelList;
  let status: number;
  let text: string;
  try {
    const response = await client.call({
      url,
      method: 'GET',
      headers: upstreamHeaders(input.upstream.protocol, input.credential, {}, input.upstream.provider),
      firstByteTimeoutMs: PROBE_TIMEOUT_MS,
      idleTimeoutMs: PROBE_TIMEOUT_MS,
    });
    status = response.status;
    text = await readUpstreamText(response);
  } catch (error) {
    return { ok: false, cause: 'unreachable', message: unreachableMessage(input.upstream.baseUrl, error) };
  }
  const refused = statusFailure(status, text, input.upstream.baseUrl, `its model list (${pathOf(url)})`);
  if (refused) return refused;
  const listed = listedModels(text);
  if (listed === undefined) {
    return {
      ok: false,
      cause: 'base_url',
      message: `${input.upstream.baseUrl} answered ${pathOf(url)} with something that is not a model list: check the base URL`,
    };
  }
  const unlisted = upstreamNames.filter((name) => !listed.has(name));
  if (unlisted.length > 0) {
    const hints = unlisted.map((name) => [...listed].find((id) => id.endsWith(`/${name}`))).filter((id): id is string => id !== undefined);
    return {
      ok: false,
      cause: 'model_not_listed',
      message: `the provider does not list ${plural(unlisted, 'model')} ${unlisted.join(', ')} (it lists ${listed.size})${hints.length ? `; it lists ${hints.join(', ')}: give the catalog model that upstream name` : ''}`,
    };
  }
  return {
    ok: true,
    method: 'model_list',
    checked: named,
    detail: `credential accepted; ${named.length ? `${named.join(', ')} listed` : 'model list read'} (${listed.size} models)`,
  };
}

/** Azure OpenAI: one minimal call per deployment (each model names one). */
async function probeByCalls(
  client: UpstreamClient,
  catalog: Catalog,
  clock: Clock,
  input: ProbeInput,
  named: string[],
): Promise<ProbeResult> {
  if (named.length === 0)
    return {
      ok: false,
      cause: 'model_not_listed',
      message: `${input.upstream.preset.name} needs the model names (each is a deployment), not *`,
    };
  const account = {
    id: 0,
    groupId: 0,
    name: 'probe',
    protocol: input.upstream.protocol,
    baseUrl: input.upstream.baseUrl,
    credential: input.credential,
    models: named,
    priority: 0,
    weight: 1,
    provider: input.upstream.provider,
    apiVersion: input.upstream.apiVersion,
  };
  for (const model of named) {
    const outcome = await dialUpstream(client, pingPlan(catalog.find(model)!, account.protocol, createCodecContext(clock)), account);
    if (outcome.status === null)
      return { ok: false, cause: 'unreachable', message: unreachableMessage(input.upstream.baseUrl, outcome.transportError) };
    if (outcome.status === 404) {
      return {
        ok: false,
        cause: 'base_url',
        message: `HTTP 404 for deployment ${catalog.find(model)!.upstreamModel ?? model}: check the base URL (https://<resource>.openai.azure.com) and that a deployment of that name exists`,
      };
    }
    const refused = statusFailure(outcome.status, '', input.upstream.baseUrl, `a minimal call to ${model}`);
    if (refused) return refused;
    if (!outcome.ok) return { ok: false, cause: 'upstream_error', message: `a minimal call to ${model} failed (HTTP ${outcome.status})` };
  }
  return { ok: true, method: 'minimal_call', checked: named, detail: `credential accepted; ${named.join(', ')} answered` };
}

function statusFailure(status: number, text: string, baseUrl: string, what: string): ProbeResult | undefined {
  if (status < 400) return undefined;
  // Google answers a wrong key with 400 API_KEY_INVALID.
  if (status === 401 || status === 403 || (status === 400 && text.includes('API_KEY_INVALID'))) {
    return {
      ok: false,
      cause: 'credential',
      message: `the provider refused the credential (HTTP ${status}) when asked for ${what}: check the API key`,
    };
  }
  if (status === 404)
    return {
      ok: false,
      cause: 'base_url',
      message: `nothing found at ${baseUrl} for ${what} (HTTP 404): check the base URL and the provider`,
    };
  return { ok: false, cause: 'upstream_error', message: `the provider answered HTTP ${status} when asked for ${what}` };
}

/** Model ids of an OpenAI, Anthropic (`data[].id`) or Google (`models[].name`) list; undefined when it is none of them. */
function listedModels(text: string): Set<string> | undefined {
  const body = parseJson(text);
  if (!isRecord(body)) return undefined;
  const entries = Array.isArray(body.data) ? body.data : Array.isArray(body.models) ? body.models : undefined;
  if (entries === undefined) return undefined;
  const ids = new Set<string>();
  for (const entry of entries) {
    if (!isRecord(entry)) continue;
    if (typeof entry.id === 'string') ids.add(entry.id);
    else if (typeof entry.name === 'string') ids.add(entry.name.replace(/^models\//, ''));
  }
  return ids;
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname;
}

function plural(items: string[], word: string): string {
  return items.length > 1 ? `${word}s` : word;
}
