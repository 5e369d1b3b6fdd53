/**
 * The Generate-Content REST API reads protobuf JSON, which accepts `snake_case` field names as well
 * as `lowerCamelCase` (Google's own curl examples send `system_instruction`, `inline_data`,
 * `mime_type`), so a client body is brought to camelCase before validation. Values that are free
 * JSON (function arguments and responses, schemas, labels) are left exactly as sent.
 */
const FREE_FORM = new Set([
  'args',
  'response',
  'parameters',
  'parametersJsonSchema',
  'responseSchema',
  'responseJsonSchema',
  'labels',
  'default',
  'example',
]);

export function normalizeGenerateContentKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeGenerateContentKeys);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const camel = key.includes('_') ? key.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase()) : key;
    // When a client sends both spellings, the camelCase one wins, as written.
    if (camel !== key && Object.prototype.hasOwnProperty.call(value, camel)) continue;
    out[camel] = FREE_FORM.has(camel) ? child : normalizeGenerateContentKeys(child);
  }
  return out;
}
