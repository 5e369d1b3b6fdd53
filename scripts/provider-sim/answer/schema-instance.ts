/**
 * A minimal instance of a JSON Schema (or of Generate-Content's OpenAPI subset): strings "example"
 * (or a value of their format), numbers 1, booleans true, arrays of one item, enums their first
 * value, objects with their required properties. Bounds that 1 or "example" would break are honoured.
 */
import { isRecord, type JsonRecord } from '../json';

const MAX_DEPTH = 24;

export function schemaInstance(schema: unknown): unknown {
  return instanceOf(schema, schema, 0);
}

function instanceOf(schema: unknown, root: unknown, depth: number): unknown {
  if (!isRecord(schema) || depth > MAX_DEPTH) return 'example';
  const resolved = resolveRef(schema, root, depth);
  if ('const' in resolved) return resolved.const;
  if (Array.isArray(resolved.enum) && resolved.enum.length > 0) return resolved.enum[0];
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = resolved[key];
    if (Array.isArray(branches) && branches.length > 0) {
      const chosen = branches.find((branch) => !(isRecord(branch) && typeOf(branch) === 'null')) ?? branches[0];
      return instanceOf(chosen, root, depth + 1);
    }
  }
  if (Array.isArray(resolved.allOf)) return instanceOf(mergeAllOf(resolved, root, depth), root, depth + 1);
  switch (typeOf(resolved)) {
    case 'string':
      return stringInstance(resolved);
    case 'integer':
      return numberInstance(resolved, true);
    case 'number':
      return numberInstance(resolved, false);
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array':
      return arrayInstance(resolved, root, depth);
    case 'object':
      return objectInstance(resolved, root, depth);
    default:
      return 'example';
  }
}

function typeOf(schema: JsonRecord): string | undefined {
  const type = schema.type;
  if (typeof type === 'string') return type.toLowerCase();
  if (Array.isArray(type)) {
    const first = type.find((entry) => typeof entry === 'string' && entry.toLowerCase() !== 'null') ?? type[0];
    return typeof first === 'string' ? first.toLowerCase() : undefined;
  }
  if (isRecord(schema.properties)) return 'object';
  if (schema.items !== undefined) return 'array';
  return undefined;
}

function resolveRef(schema: JsonRecord, root: unknown, depth: number): JsonRecord {
  const ref = schema.$ref;
  if (typeof ref !== 'string' || !ref.startsWith('#') || depth > MAX_DEPTH) return schema;
  let target: unknown = root;
  for (const raw of ref
    .slice(1)
    .split('/')
    .filter((part) => part !== '')) {
    const part = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    target = isRecord(target) ? target[part] : undefined;
  }
  return isRecord(target) ? resolveRef(target, root, depth + 1) : schema;
}

function mergeAllOf(schema: JsonRecord, root: unknown, depth: number): JsonRecord {
  const merged: JsonRecord = { ...schema };
  delete merged.allOf;
  const properties: JsonRecord = isRecord(schema.properties) ? { ...schema.properties } : {};
  const required = new Set<string>(Array.isArray(schema.required) ? schema.required.filter((v): v is string => typeof v === 'string') : []);
  for (const part of Array.isArray(schema.allOf) ? schema.allOf : []) {
    if (!isRecord(part)) continue;
    const resolved = resolveRef(part, root, depth + 1);
    for (const [key, value] of Object.entries(resolved)) {
      if (key === 'properties' && isRecord(value)) Object.assign(properties, value);
      else if (key === 'required' && Array.isArray(value)) value.forEach((name) => typeof name === 'string' && required.add(name));
      else if (merged[key] === undefined) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

const FORMATS: Record<string, string> = {
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00',
  email: 'user@example.com',
  uri: 'https://example.com',
  url: 'https://example.com',
  uuid: '00000000-0000-4000-8000-000000000000',
  ipv4: '127.0.0.1',
  hostname: 'example.com',
};

function stringInstance(schema: JsonRecord): string {
  let value = typeof schema.format === 'string' && FORMATS[schema.format] !== undefined ? FORMATS[schema.format]! : 'example';
  if (typeof schema.minLength === 'number' && value.length < schema.minLength) value = value.padEnd(schema.minLength, 'x');
  if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) value = value.slice(0, schema.maxLength);
  return value;
}

function numberInstance(schema: JsonRecord, integer: boolean): number {
  let value = 1;
  const step = integer ? 1 : 0.5;
  if (typeof schema.minimum === 'number' && value < schema.minimum) value = schema.minimum;
  if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) value = schema.exclusiveMinimum + step;
  if (typeof schema.maximum === 'number' && value > schema.maximum) value = schema.maximum;
  if (typeof schema.exclusiveMaximum === 'number' && value >= schema.exclusiveMaximum) value = schema.exclusiveMaximum - step;
  if (integer) value = Math.ceil(value);
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0) value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  return value;
}

function arrayInstance(schema: JsonRecord, root: unknown, depth: number): unknown[] {
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Infinity;
  const minItems = typeof schema.minItems === 'number' ? schema.minItems : 1;
  const count = Math.min(Math.max(1, minItems), maxItems);
  const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
  const items: unknown[] = [];
  for (let index = 0; index < count; index++) items.push(instanceOf(prefix[index] ?? schema.items, root, depth + 1));
  return items;
}

function objectInstance(schema: JsonRecord, root: unknown, depth: number): JsonRecord {
  const properties = isRecord(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
  const instance: JsonRecord = {};
  for (const name of required) instance[name] = instanceOf(properties[name], root, depth + 1);
  return instance;
}
