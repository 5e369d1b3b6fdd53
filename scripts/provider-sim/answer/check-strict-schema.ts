/**
 * OpenAI strict mode (structured outputs, strict tools): every object must set
 * `additionalProperties: false` and list every property in `required`. Returns the API's complaint
 * about the first violation, or null.
 */
import { isRecord } from '../json';

export function checkStrictSchema(schema: unknown): string | null {
  return visit(schema, []);
}

function visit(schema: unknown, path: string[]): string | null {
  if (!isRecord(schema)) return null;
  const context = `In context=(${path.map((part) => `'${part}'`).join(', ')})`;
  const isObject =
    schema.type === 'object' || (Array.isArray(schema.type) && schema.type.includes('object')) || isRecord(schema.properties);
  if (isObject) {
    if (schema.additionalProperties !== false) return `${context}, 'additionalProperties' is required to be supplied and to be false.`;
    const properties = isRecord(schema.properties) ? Object.keys(schema.properties) : [];
    const required = Array.isArray(schema.required) ? schema.required : [];
    const missing = properties.find((name) => !required.includes(name));
    if (missing !== undefined) {
      return `${context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    }
  }
  for (const [key, value] of Object.entries(schema)) {
    if ((key === 'properties' || key === '$defs' || key === 'definitions') && isRecord(value)) {
      for (const [name, child] of Object.entries(value)) {
        const found = visit(child, [...path, key, name]);
        if (found !== null) return found;
      }
    } else if ((key === 'items' || key === 'additionalItems') && isRecord(value)) {
      const found = visit(value, [...path, key]);
      if (found !== null) return found;
    } else if ((key === 'anyOf' || key === 'allOf' || key === 'oneOf') && Array.isArray(value)) {
      for (let index = 0; index < value.length; index++) {
        const found = visit(value[index], [...path, key, String(index)]);
        if (found !== null) return found;
      }
    }
  }
  return null;
}
