/**
 * Generate-Content `parameters` and `responseSchema` take an OpenAPI subset, parsed as a protocol
 * buffer: a field outside the subset (`additionalProperties`, `$schema`, `const`…) or a list where
 * one type is expected is rejected with the proto parser's own message.
 */
import { isRecord } from '../json';
import { googleInvalid } from '../sim-error';

const ALLOWED = new Set([
  'anyOf',
  'default',
  'description',
  'enum',
  'example',
  'format',
  'items',
  'maxItems',
  'maxLength',
  'maxProperties',
  'maximum',
  'minItems',
  'minLength',
  'minProperties',
  'minimum',
  'nullable',
  'pattern',
  'properties',
  'propertyOrdering',
  'required',
  'title',
  'type',
]);
const SNAKE_ALIASES: Record<string, string> = {
  any_of: 'anyOf',
  max_items: 'maxItems',
  max_length: 'maxLength',
  max_properties: 'maxProperties',
  min_items: 'minItems',
  min_length: 'minLength',
  min_properties: 'minProperties',
  property_ordering: 'propertyOrdering',
};
const TYPES = new Set(['TYPE_UNSPECIFIED', 'STRING', 'NUMBER', 'INTEGER', 'BOOLEAN', 'ARRAY', 'OBJECT', 'NULL']);

/** Throws the API's 400 for the first field the subset does not know; `at` is the proto path. */
export function checkGeminiSchema(schema: unknown, at: string): void {
  if (!isRecord(schema))
    throw googleInvalid(`Invalid JSON payload received. Unknown name "" at '${at}': Proto field is not repeating, cannot start list.`);
  for (const [rawKey, value] of Object.entries(schema)) {
    const key = SNAKE_ALIASES[rawKey] ?? rawKey;
    if (!ALLOWED.has(key)) throw googleInvalid(`Invalid JSON payload received. Unknown name "${rawKey}" at '${at}': Cannot find field.`);
    if (key === 'type') {
      if (Array.isArray(value))
        throw googleInvalid(`Invalid JSON payload received. Proto field is not repeating, cannot start list at '${at}.type'.`);
      if (typeof value !== 'string' || !TYPES.has(value.toUpperCase())) {
        throw googleInvalid(
          `Invalid JSON payload received. Invalid value at '${at}.type' (type.googleapis.com/google.ai.generativelanguage.v1beta.Type), "${String(value)}"`,
        );
      }
    } else if (key === 'properties') {
      if (!isRecord(value)) throw googleInvalid(`Invalid JSON payload received. Invalid value at '${at}.properties'.`);
      Object.entries(value).forEach(([, child], index) => checkGeminiSchema(child, `${at}.properties[${index}].value`));
    } else if (key === 'items') {
      checkGeminiSchema(value, `${at}.items`);
    } else if (key === 'anyOf') {
      if (!Array.isArray(value)) throw googleInvalid(`Invalid JSON payload received. Invalid value at '${at}.any_of'.`);
      value.forEach((child, index) => checkGeminiSchema(child, `${at}.any_of[${index}]`));
    }
  }
}
