/**
 * Chat strict mode (structured output and `strict` tools) accepts only schemas where every object
 * has `additionalProperties: false` and lists every property in `required` (PROTOCOLS.md 2.5).
 * The first is added where missing (strict implies it); the second cannot be fixed without changing
 * what the schema means, so such a schema is sent non-strict and the caller reports a warning.
 */
import type { JsonSchema } from '../../ir/request';
import { isRecord } from '../shared/read-json';

/** Values that are data, not sub-schemas. */
const DATA_KEYS = new Set(['enum', 'const', 'default', 'examples', 'example']);

function isObjectSchema(node: Record<string, unknown>): boolean {
  const type = node.type;
  return type === 'object' || (Array.isArray(type) && type.includes('object'));
}

function walkValue(value: unknown, state: { compliant: boolean }): unknown {
  if (Array.isArray(value)) return value.map((item) => walkValue(item, state));
  return isRecord(value) ? walkSchema(value, state) : value;
}

function walkSchema(node: Record<string, unknown>, state: { compliant: boolean }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key] = DATA_KEYS.has(key) ? value : walkValue(value, state);
  }
  if (isObjectSchema(node)) {
    if (node.additionalProperties === undefined) out.additionalProperties = false;
    else if (node.additionalProperties !== false) state.compliant = false;
    const required = Array.isArray(node.required) ? node.required : [];
    if (isRecord(node.properties)) {
      for (const name of Object.keys(node.properties)) {
        if (!required.includes(name)) state.compliant = false;
      }
    }
  }
  return out;
}

/** `strict` is true only when the (completed) schema satisfies strict mode. */
export function prepareStrictSchema(schema: JsonSchema): { schema: JsonSchema; strict: boolean } {
  const state = { compliant: true };
  const prepared = walkSchema(schema, state);
  return state.compliant ? { schema: prepared, strict: true } : { schema, strict: false };
}
