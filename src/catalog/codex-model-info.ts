/**
 * The model-info list Codex reads from `GET /models?client_version=…` (issue 25): the catalog's
 * models Codex can call (those allowing the Responses protocol) in the shape of Codex's own model
 * catalog, so Codex knows their context window (and so when to compact), reasoning levels, input
 * modalities and tool support instead of falling back to guessed metadata. Codex requires an
 * instructions template with each model and then uses it in place of its own prompt: the gateway's
 * is a short, model-neutral agent prompt (docs/client-requirements.md says when to prefer Codex's own).
 */
import type { CatalogModel } from './model';

const REASONING_LEVELS = [
  { effort: 'low', description: 'Fast responses with lighter reasoning' },
  { effort: 'medium', description: 'Balances speed and reasoning depth' },
  { effort: 'high', description: 'Greater reasoning depth for complex problems' },
];

/** The agent prompt Codex uses for the gateway's models (Codex sends it as its instructions). */
export const CODEX_INSTRUCTIONS = [
  "You are a coding agent working in the user's workspace through the tools you are given.",
  'Read the relevant files before changing them, make focused changes that fully solve the task, and',
  "check your work by running the project's tests or commands when you can. Follow the instructions in",
  'AGENTS.md files that apply to the files you touch. Keep the user informed with brief progress notes,',
  'ask only when a decision truly needs them, and end with a concise summary of what changed and how it',
  'was verified.',
].join(' ');

export function servesCodex(model: CatalogModel): boolean {
  return model.kind === 'chat' && !model.retired && model.protocols.includes('responses');
}

export function codexModelInfo(model: CatalogModel, priority: number): Record<string, unknown> {
  const reasoning = model.capabilities.includes('thinking');
  return {
    slug: model.id,
    display_name: model.id,
    description: `${model.ownedBy} ${model.id} through the gateway`,
    ...(reasoning ? { default_reasoning_level: 'medium' } : {}),
    supported_reasoning_levels: reasoning ? REASONING_LEVELS : [],
    shell_type: 'shell_command',
    visibility: 'list',
    supported_in_api: true,
    priority,
    availability_nux: null,
    upgrade: null,
    model_messages: { instructions_template: CODEX_INSTRUCTIONS },
    supports_reasoning_summaries: reasoning,
    supports_reasoning_summary_parameter: reasoning,
    default_reasoning_summary: 'none',
    support_verbosity: false,
    default_verbosity: null,
    apply_patch_tool_type: null,
    web_search_tool_type: 'text',
    truncation_policy: { mode: 'tokens', limit: 10_000 },
    supports_parallel_tool_calls: model.capabilities.includes('tool_use'),
    supports_image_detail_original: false,
    context_window: model.contextWindow,
    max_context_window: model.contextWindow,
    effective_context_window_percent: 95,
    experimental_supported_tools: [],
    input_modalities: model.inputModalities.filter((modality) => modality === 'text' || modality === 'image'),
    supports_search_tool: false,
    use_responses_lite: false,
    prefer_websockets: true,
    additional_speed_tiers: [],
    service_tiers: [],
    default_service_tier: null,
  };
}
