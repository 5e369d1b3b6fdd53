/**
 * JSON text with object keys sorted at every depth: equal values give equal text (for hashing).
 * `omit` drops keys wherever they appear (values that may differ without changing the meaning).
 */
export function canonicalJson(value: unknown, omit: readonly string[] = []): string {
  return (
    JSON.stringify(value, (_key, inner: unknown) => {
      if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
      const entries = Object.entries(inner as Record<string, unknown>).filter(([key]) => !omit.includes(key));
      return Object.fromEntries(entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }) ?? 'null'
  );
}
