/**
 * An allowlist as stored: an exact entry naming a catalog alias is kept as the model's slug, since
 * the check runs after alias resolution and sees slugs only. Patterns and unknown slugs (a model
 * the catalog may gain later) are kept as given.
 */
import type { Catalog } from '../catalog/catalog';

export function canonicalAllowlist(catalog: Pick<Catalog, 'find'>, patterns: readonly string[] | undefined): string[] | undefined {
  if (patterns === undefined) return undefined;
  return [...new Set(patterns.map((pattern) => (pattern.endsWith('*') ? pattern : (catalog.find(pattern)?.id ?? pattern))))];
}
