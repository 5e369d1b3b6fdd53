import type { TranslationWarning } from '../ir/warning';

/** `x-gateway-warnings`: the fields that could not cross, so a client can see what was dropped. */
export function warningHeader(warnings: readonly TranslationWarning[]): string | undefined {
  if (warnings.length === 0) return undefined;
  const fields = [...new Set(warnings.map((w) => w.field))];
  return fields
    .join(', ')
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 1000);
}
