/**
 * Provider presets: what an operator needs to know to connect a provider account, as upstream
 * configuration. A preset names the protocol the provider speaks, its default base URL, the header
 * that carries the credential, the path convention and the model-list endpoint the verification
 * probe reads. The paths themselves stay with the protocol codecs (`/v1/chat/completions`, …);
 * the stored base URL is what comes before them, so a base URL given with its version segment
 * (`https://api.openai.com/v1`) is normalised to the part before it, and the change reported.
 */
import type { Protocol } from '../ir/protocol';

export type CredentialHeader = 'x-api-key' | 'authorization' | 'x-goog-api-key' | 'api-key';

export interface ProviderPreset {
  name: string;
  label: string;
  /** The protocol used unless the operator names another this provider speaks too. */
  protocol: Protocol;
  /** Every protocol the provider speaks (the default first). */
  protocols: Protocol[];
  /** Undefined: the operator must give one (Azure resources, OpenAI-compatible servers). */
  defaultBaseUrl?: string;
  credentialHeader: CredentialHeader;
  /** `deployments`: Azure OpenAI's `/openai/deployments/<deployment>/…?api-version=` paths, the deployment named after the model. */
  paths: 'standard' | 'deployments';
  /** Path segments a pasted base URL may end with that the codec's paths already carry. */
  versionSegments: string[];
  /** The model list the probe reads (after the base URL); undefined: the probe makes a minimal call instead. */
  modelList?: string;
  /** Azure's `api-version` query default. */
  defaultApiVersion?: string;
  /** A model of the default catalog to show in examples. */
  exampleModel: string;
}

const openaiStyle = (name: string, label: string, defaultBaseUrl: string | undefined, exampleModel: string): ProviderPreset => ({
  name,
  label,
  protocol: 'chat',
  protocols: ['chat'],
  defaultBaseUrl,
  credentialHeader: 'authorization',
  paths: 'standard',
  versionSegments: ['/v1'],
  modelList: '/v1/models',
  exampleModel,
});

export const PROVIDER_PRESETS: readonly ProviderPreset[] = [
  {
    name: 'anthropic',
    label: 'Anthropic',
    protocol: 'messages',
    protocols: ['messages'],
    defaultBaseUrl: 'https://api.anthropic.com',
    credentialHeader: 'x-api-key',
    paths: 'standard',
    versionSegments: ['/v1'],
    modelList: '/v1/models?limit=1000',
    exampleModel: 'claude-sonnet-4-5',
  },
  { ...openaiStyle('openai', 'OpenAI', 'https://api.openai.com', 'gpt-4.1'), protocol: 'responses', protocols: ['responses', 'chat'] },
  {
    name: 'gemini',
    label: 'Google AI Studio (Gemini)',
    protocol: 'generate-content',
    protocols: ['generate-content'],
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    credentialHeader: 'x-goog-api-key',
    paths: 'standard',
    versionSegments: ['/v1beta', '/v1'],
    modelList: '/v1beta/models?pageSize=1000',
    exampleModel: 'gemini-2.5-flash',
  },
  {
    name: 'azure-openai',
    label: 'Azure OpenAI',
    protocol: 'chat',
    protocols: ['chat'],
    credentialHeader: 'api-key',
    paths: 'deployments',
    versionSegments: ['/openai/v1', '/openai'],
    defaultApiVersion: '2024-10-21',
    exampleModel: 'gpt-4.1',
  },
  openaiStyle('deepseek', 'DeepSeek', 'https://api.deepseek.com', 'deepseek-v3.2'),
  openaiStyle('mistral', 'Mistral', 'https://api.mistral.ai', 'mistral-large'),
  openaiStyle('xai', 'xAI (Grok)', 'https://api.x.ai', 'grok-4'),
  openaiStyle('moonshot', 'Moonshot (Kimi)', 'https://api.moonshot.ai', 'kimi-k2'),
  openaiStyle('openrouter', 'OpenRouter', 'https://openrouter.ai/api', 'gpt-4.1'),
  openaiStyle('openai-compatible', 'OpenAI-compatible (any base URL)', undefined, 'gpt-4.1'),
];

export const PROVIDER_NAMES = PROVIDER_PRESETS.map((p) => p.name);

export function findPreset(name: string | undefined): ProviderPreset | undefined {
  return name === undefined ? undefined : PROVIDER_PRESETS.find((p) => p.name === name);
}

/** The conventions of an account added by protocol alone (no preset): the protocol's own provider's. */
export function presetForProtocol(protocol: Protocol): ProviderPreset {
  const name = { messages: 'anthropic', responses: 'openai', chat: 'openai-compatible', 'generate-content': 'gemini' }[protocol];
  return { ...findPreset(name)!, protocol, protocols: [protocol] };
}

export class UpstreamConfigError extends Error {
  constructor(
    message: string,
    readonly param: string,
  ) {
    super(message);
    this.name = 'UpstreamConfigError';
  }
}

export interface ResolvedUpstream {
  preset: ProviderPreset;
  /** The preset's name; undefined when the account was given by protocol alone. */
  provider?: string;
  protocol: Protocol;
  baseUrl: string;
  apiVersion?: string;
  /** What normalisation changed, for the operator (empty when the base URL was taken as given). */
  notes: string[];
}

/**
 * The account an operator asked for: a preset (or a protocol alone), a base URL (the preset's
 * default when omitted) normalised to what the codec's paths follow, and Azure's api-version.
 */
export function resolveUpstream(input: {
  provider?: string;
  protocol?: Protocol;
  baseUrl?: string;
  apiVersion?: string;
  /** A change's stored api-version: kept unless the change names one or pastes one in its base URL. */
  keptApiVersion?: string;
}): ResolvedUpstream {
  let preset: ProviderPreset;
  if (input.provider !== undefined) {
    const found = findPreset(input.provider);
    if (!found) throw new UpstreamConfigError(`unknown provider "${input.provider}"; use one of ${PROVIDER_NAMES.join(', ')}`, 'provider');
    if (input.protocol !== undefined && !found.protocols.includes(input.protocol)) {
      throw new UpstreamConfigError(`provider ${found.name} speaks ${found.protocols.join(' or ')}, not ${input.protocol}`, 'protocol');
    }
    preset = { ...found, protocol: input.protocol ?? found.protocol };
  } else if (input.protocol !== undefined) {
    preset = presetForProtocol(input.protocol);
  } else {
    throw new UpstreamConfigError('name a provider (or a protocol)', 'provider');
  }
  const given = input.baseUrl?.trim() || preset.defaultBaseUrl;
  if (given === undefined) throw new UpstreamConfigError(`provider ${preset.name} needs a base URL (there is no default)`, 'base_url');
  const normalised = normaliseBaseUrl(preset, given);
  const apiVersion =
    preset.paths === 'deployments'
      ? (input.apiVersion ?? normalised.apiVersion ?? input.keptApiVersion ?? preset.defaultApiVersion)
      : undefined;
  if (input.apiVersion !== undefined && preset.paths !== 'deployments')
    throw new UpstreamConfigError(`an api-version is only taken by azure-openai`, 'api_version');
  if (apiVersion !== undefined && !/^[0-9A-Za-z.-]{1,40}$/.test(apiVersion))
    throw new UpstreamConfigError(`api-version "${apiVersion}" is not a version (e.g. 2024-10-21)`, 'api_version');
  return {
    preset,
    provider: input.provider === undefined ? undefined : preset.name,
    protocol: preset.protocol,
    baseUrl: normalised.baseUrl,
    apiVersion,
    notes: normalised.notes,
  };
}

function normaliseBaseUrl(preset: ProviderPreset, given: string): { baseUrl: string; apiVersion?: string; notes: string[] } {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UpstreamConfigError(`base URL "${given}" is not a URL`, 'base_url');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UpstreamConfigError(`base URL "${given}" must be http(s)`, 'base_url');
  if (url.username || url.password)
    throw new UpstreamConfigError('the base URL must not carry a user or password; give the credential as the API key', 'base_url');
  const notes: string[] = [];
  const apiVersion = url.searchParams.get('api-version') ?? undefined;
  if (url.search) notes.push(`dropped the query ${url.search}${apiVersion ? ` (api-version ${apiVersion} kept)` : ''}`);
  let pathname = url.pathname.replace(/\/+$/, '');
  if (preset.paths === 'deployments') {
    const deployment = /\/openai\/deployments\/[^/]+(\/.*)?$/.exec(pathname);
    if (deployment) {
      pathname = pathname.slice(0, deployment.index);
      notes.push('removed the deployment path (the deployment is named after each model)');
    }
  }
  for (const segment of preset.versionSegments) {
    if (pathname.endsWith(segment)) {
      pathname = pathname.slice(0, -segment.length);
      notes.push(`removed the version segment ${segment} (the gateway adds the paths after it)`);
      break;
    }
  }
  return { baseUrl: `${url.origin}${pathname}`, apiVersion, notes };
}

/** The URL of one call: the codec's path after the base URL, or Azure's deployment path. */
export function upstreamUrl(
  account: { baseUrl: string; provider?: string; apiVersion?: string },
  path: string,
  upstreamModel: string,
): string {
  const preset = findPreset(account.provider);
  if (preset?.paths !== 'deployments') return account.baseUrl + path;
  const [pathname, query] = path.split('?', 2);
  const rest = pathname.replace(/^\/v1\//, '/');
  const search = new URLSearchParams(query);
  search.set('api-version', account.apiVersion ?? preset.defaultApiVersion ?? '');
  return `${account.baseUrl}/openai/deployments/${encodeURIComponent(upstreamModel)}${rest}?${search.toString()}`;
}

/** The header carrying the credential when the preset differs from its protocol's (Azure's `api-key`). */
export function credentialHeaderOverride(provider: string | undefined): CredentialHeader | undefined {
  const preset = findPreset(provider);
  return preset?.credentialHeader === 'api-key' ? 'api-key' : undefined;
}
