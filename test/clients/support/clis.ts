/**
 * How each agent CLI is pointed at the gateway, exactly as the README's "Use it with…" section tells
 * a user: base URL and key, and only telemetry, error reporting and update checks switched off.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Workspace } from './workspace';

const BIN = path.resolve(__dirname, '..', 'node_modules', '.bin');
export const binary = (name: 'claude' | 'codex' | 'gemini'): string => path.join(BIN, name);

/** Claude Code: the Messages base URL and key; no telemetry, error reports, auto-update or other traffic. */
export function claudeCodeEnv(workspace: Workspace, baseUrl: string, key: string): Record<string, string> {
  return {
    ...workspace.env,
    ANTHROPIC_BASE_URL: baseUrl,
    ANTHROPIC_API_KEY: key,
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

/** How a Codex cell reaches the gateway beyond the default custom provider (long-session cells, issue 25). */
export interface CodexSetup {
  /** `custom` (default): a `[model_providers.gateway]` entry; `openai`: Codex's built-in OpenAI provider at `openai_base_url`. */
  provider?: 'custom' | 'openai';
  /** Extra lines of the custom provider's table (e.g. `supports_websockets = true`). */
  providerLines?: string[];
  /** Extra top-level lines (e.g. `model_auto_compact_token_limit = 4000`). */
  topLines?: string[];
  /** The custom provider reads its model catalog from the gateway (`model_catalog_url`). */
  gatewayCatalog?: boolean;
}

function codexProviderLines(baseUrl: string, setup: CodexSetup): string[] {
  if (setup.provider === 'openai') return [`openai_base_url = "${baseUrl}/v1"`, 'check_for_update_on_startup = false', ''];
  return [
    'model_provider = "gateway"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.gateway]',
    'name = "Model gateway"',
    `base_url = "${baseUrl}/v1"`,
    'env_key = "GATEWAY_API_KEY"',
    'wire_api = "responses"',
    ...(setup.gatewayCatalog ? [`model_catalog_url = "${baseUrl}/v1/models"`] : []),
    ...(setup.providerLines ?? []),
    '',
  ];
}

/**
 * Codex: the gateway as a custom Responses provider in `$CODEX_HOME/config.toml`, the key in
 * `GATEWAY_API_KEY` (or, with the built-in OpenAI provider, in `CODEX_API_KEY`); no model: Codex's own default.
 */
export function codexEnv(
  workspace: Workspace,
  baseUrl: string,
  key: string,
  model: string | undefined,
  setup: CodexSetup = {},
): Record<string, string> {
  const codexHome = path.join(workspace.home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      ...(model === undefined ? [] : [`model = "${model}"`]),
      ...(setup.topLines ?? []),
      ...codexProviderLines(baseUrl, setup),
      '[analytics]',
      'enabled = false',
      '',
      '[feedback]',
      'enabled = false',
      '',
      '[otel]',
      'exporter = "none"',
      '',
      // The plugin marketplace sync clones from github.com and asks chatgpt.com at every start:
      // traffic to third parties, like an update check, not part of talking to the model.
      '[features]',
      'plugins = false',
      'remote_plugin = false',
      'plugin_sharing = false',
      '',
    ].join('\n'),
  );
  return { ...workspace.env, CODEX_HOME: codexHome, ...(setup.provider === 'openai' ? { CODEX_API_KEY: key } : { GATEWAY_API_KEY: key }) };
}

/** Gemini CLI: the Generate-Content base URL and key; usage statistics, telemetry and update checks off. */
export function geminiCliEnv(workspace: Workspace, baseUrl: string, key: string): Record<string, string> {
  const settingsDir = path.join(workspace.home, '.gemini');
  mkdirSync(settingsDir, { recursive: true });
  writeFileSync(
    path.join(settingsDir, 'settings.json'),
    JSON.stringify(
      {
        privacy: { usageStatisticsEnabled: false },
        telemetry: { enabled: false },
        general: { disableAutoUpdate: true, disableUpdateNag: true },
        security: { auth: { selectedType: 'gemini-api-key' } },
      },
      null,
      2,
    ),
  );
  // A headless run cannot answer the folder-trust prompt; this is the documented switch for it.
  return { ...workspace.env, GOOGLE_GEMINI_BASE_URL: baseUrl, GEMINI_API_KEY: key, GEMINI_CLI_TRUST_WORKSPACE: 'true' };
}
