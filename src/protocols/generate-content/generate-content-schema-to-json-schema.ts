/**
 * A client's OpenAPI-subset schema (`parameters`, `responseSchema`; types often upper case,
 * `nullable`) → plain JSON Schema, the IR's form, so other protocols' upstreams can read it.
 */
import type { JsonSchema } from '../../ir/request';
import { isRecord } from '../shared/read-json';

export function generateContentSchemaToJsonSchema(schema: JsonSchema): JsonSchema {
  return convert(schema);
}

function convert(node: Record<string, unknown>): JsonSchema {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    switch (key) {
      case 'type':
        out.type = typeof value === 'string' ? value.toLowerCase() : value;
        break;
      case 'nullable':
        break;
      case 'properties':
        if (isRecord(value)) {
          const properties: Record<string, JsonSchema> = {};
          for (const [name, child] of Object.entries(value)) properties[name] = isRecord(child) ? convert(child) : {};
          out.properties = properties;
        } else out.properties = value;
        break;
      case 'items':
        out.items = isRecord(value) ? convert(value) : value;
        break;
      case 'anyOf':
        out.anyOf = Array.isArray(value) ? value.map((alt) => (isRecord(alt) ? convert(alt) : alt)) : value;
        break;
      case 'propertyOrdering':
        break; // a Generate-Content-only hint with no JSON Schema meaning
      default:
        out[key] = value;
    }
  }
  if (node.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    else if (Array.isArray(out.anyOf)) out.anyOf = [...out.anyOf, { type: 'null' }];
  }
  return out;
}
