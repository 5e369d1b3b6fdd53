/**
 * A key's model allowlist (issue 21): exact catalog slugs or `prefix*` patterns; an empty list allows
 * every model. Compiled once when the key is loaded into the per-process cache, so the check on a
 * request is a set lookup and a few prefix comparisons, never a query. Aliases are resolved before
 * the check: it always sees the canonical slug.
 */
import { GatewayError } from '../errors/gateway-error';

export interface ModelAllowlist {
  /** The patterns as stored (for presentation). */
  readonly patterns: readonly string[];
  allows(modelId: string): boolean;
}

/** A slug (letters, digits, `.-_:/@`) optionally ending in `*`; `*` alone allows everything. */
export const MODEL_PATTERN = /^(?:[A-Za-z0-9][A-Za-z0-9._:/@-]{0,199}\*?|\*)$/;

export const ALLOW_EVERY_MODEL: ModelAllowlist = Object.freeze({ patterns: Object.freeze([]) as readonly string[], allows: () => true });

export function compileModelAllowlist(patterns: readonly string[]): ModelAllowlist {
  if (patterns.length === 0) return ALLOW_EVERY_MODEL;
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')));
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1));
  return Object.freeze({
    patterns: Object.freeze([...patterns]),
    allows: (modelId: string) => exact.has(modelId) || prefixes.some((prefix) => modelId.startsWith(prefix)),
  });
}

/** 403 `permission_error` (every protocol's "model gated") when the key may not call the model. */
export function assertModelAllowed(key: { allowedModels: ModelAllowlist }, modelId: string): void {
  if (!key.allowedModels.allows(modelId)) {
    throw new GatewayError('permission', `model not allowed for this key: ${modelId}`, { param: 'model' });
  }
}
