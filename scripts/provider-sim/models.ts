/**
 * Which model names each simulated endpoint serves: the upstream names (and aliases) of the default
 * catalog on their native protocol(s), with the catalog's published output limits, and any name
 * starting with `sim-` everywhere. Everything else is an
 * unknown model, answered as the real API would.
 */
import { DEFAULT_CATALOG } from '../../src/catalog/default-catalog';
import type { SimProtocol } from './request-log';

export type Endpoint = Exclude<SimProtocol, 'unknown'>;

export interface SimModel {
  name: string;
  vendor: string;
  maxOutputTokens: number;
  /** OpenAI reasoning models reject `max_tokens` and a non-default temperature in Chat. */
  openaiReasoning: boolean;
  /** OpenAI models without reasoning reject reasoning parameters. */
  rejectsReasoning: boolean;
  /** Generate-Content models whose function calls must carry a thought signature (gemini-3 rules). */
  requiresThoughtSignatures: boolean;
  /** Generate-Content models that cannot turn thinking off (`thinkingBudget: 0`). */
  thinkingOnly: boolean;
  /** Generate-Content image models: answer with an inline PNG when IMAGE output is asked for. */
  imageOutput: boolean;
  /** Input tokens the model takes; a longer prompt gets the provider's overflow refusal (context-limit.ts). */
  contextWindow: number;
  isSim: boolean;
}

const SIM_MAX_OUTPUT_TOKENS = 32_768;
const SIM_CONTEXT_WINDOW = 2_000_000;
/** `sim-small-context`: a window small enough for tests to overflow on purpose. */
const SMALL_CONTEXT_WINDOW = 8_192;
/** Image and video entries list 0 output tokens; their text answers still need a limit. */
const MEDIA_MAX_OUTPUT_TOKENS = 8_192;

export class ModelRegistry {
  private readonly byEndpoint = new Map<Endpoint, Map<string, SimModel>>();

  constructor() {
    for (const entry of DEFAULT_CATALOG) {
      if (entry.retired === true) continue;
      const name = entry.upstreamModel ?? entry.id;
      const model: SimModel = {
        name,
        vendor: entry.family,
        maxOutputTokens: entry.maxOutputTokens > 0 ? entry.maxOutputTokens : MEDIA_MAX_OUTPUT_TOKENS,
        openaiReasoning: entry.family === 'openai' && entry.capabilities.includes('thinking'),
        rejectsReasoning: entry.family === 'openai' && !entry.capabilities.includes('thinking'),
        requiresThoughtSignatures: name.includes('gemini-3'),
        thinkingOnly: name.includes('gemini-2.5-pro') || name.includes('gemini-3'),
        imageOutput: entry.kind === 'image',
        contextWindow: entry.contextWindow > 0 ? entry.contextWindow : SIM_CONTEXT_WINDOW,
        isSim: false,
      };
      // Real APIs answer to their dated snapshot names too; the catalog's aliases stand for them.
      for (const endpoint of endpointsOf(entry.kind, entry.nativeProtocols)) {
        for (const alias of [name, ...(entry.aliases ?? [])]) this.add(endpoint, alias, model);
      }
    }
  }

  find(endpoint: Endpoint, name: string): SimModel | undefined {
    if (name.startsWith('sim-')) return simModel(name);
    return this.byEndpoint.get(endpoint)?.get(name);
  }

  /** Every name an endpoint answers to (the `sim-` names excepted), for the model-list endpoints. */
  names(endpoint: Endpoint): string[] {
    return [...(this.byEndpoint.get(endpoint)?.keys() ?? [])];
  }

  private add(endpoint: Endpoint, name: string, model: SimModel): void {
    let models = this.byEndpoint.get(endpoint);
    if (models === undefined) {
      models = new Map();
      this.byEndpoint.set(endpoint, models);
    }
    models.set(name, model);
  }
}

function endpointsOf(kind: string, nativeProtocols: readonly string[]): Endpoint[] {
  if (kind === 'video') return ['video'];
  // Image models of the OpenAI family live on the Images API; Google's answer through generateContent.
  if (kind === 'image') return nativeProtocols.includes('generate-content') ? ['generate-content'] : ['images'];
  return nativeProtocols.filter(
    (protocol): protocol is Endpoint =>
      protocol === 'messages' || protocol === 'chat' || protocol === 'responses' || protocol === 'generate-content',
  );
}

/**
 * `sim-small-context` takes 8192 input tokens; `sim-ctx-<N>` takes N, and `sim-ctx-<N>-<vendor>`
 * refuses a longer prompt in that Chat vendor's words (deepseek, mistral, xai, moonshot, meta).
 */
function simContext(name: string): { contextWindow: number; vendor: string } {
  if (name === 'sim-small-context') return { contextWindow: SMALL_CONTEXT_WINDOW, vendor: 'sim' };
  const match = /^sim-ctx-(\d+)(?:-([a-z]+))?$/.exec(name);
  if (match) return { contextWindow: Number(match[1]), vendor: match[2] ?? 'sim' };
  return { contextWindow: SIM_CONTEXT_WINDOW, vendor: 'sim' };
}

function simModel(name: string): SimModel {
  const { contextWindow, vendor } = simContext(name);
  return {
    name,
    vendor,
    contextWindow,
    maxOutputTokens: SIM_MAX_OUTPUT_TOKENS,
    openaiReasoning: false,
    rejectsReasoning: false,
    requiresThoughtSignatures: name.startsWith('sim-g3'),
    thinkingOnly: false,
    imageOutput: true,
    isSim: true,
  };
}
