/**
 * JSON Schema → the OpenAPI subset Generate-Content accepts for tool `parameters` and
 * `responseSchema` (PROTOCOLS.md §2.5, pitfall 7). Unsupported keywords are dropped, type arrays
 * and `anyOf [X, null]` become `nullable`, `const` a one-value `enum`, `$ref` is inlined.
 */
import type { JsonSchema } from '../../ir/request';
import { isRecord } from '../shared/read-json';

const KEPT = new Set([
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

/** Formats Generate-Content accepts, by type; any other `format` is rejected upstream, so it is dropped. */
const FORMATS: Record<string, ReadonlySet<string>> = {
  string: new Set(['enum', 'date-time']),
  integer: new Set(['int32', 'int64']),
  number: new Set(['float', 'double']),
};

/** Deeper than this a `$ref` is taken to be recursive, which the subset cannot express. */
const MAX_REF_DEPTH = 8;

export function sanitizeGenerateContentSchema(schema: JsonSchema): JsonSchema {
  return sanitize(schema, schema, 0);
}

/** An object schema with no properties: Generate-Content rejects it as tool `parameters`. */
export function isEmptyObjectSchema(schema: JsonSchema): boolean {
  const properties = schema.properties;
  const noProperties = properties === undefined || (isRecord(properties) && Object.keys(properties).length === 0);
  return (schema.type === undefined || schema.type === 'object') && noProperties && schema.anyOf === undefined;
}

function sanitize(node: unknown, root: JsonSchema, refDepth: number): JsonSchema {
  if (!isRecord(node)) return {};
  let schema: Record<string, unknown> = node;

  if (typeof schema.$ref === 'string') {
    const target = refDepth < MAX_REF_DEPTH ? resolveRef(schema.$ref, root) : undefined;
    const { $ref: _ref, ...rest } = schema;
    // Recursion or an unknown reference: the nearest expressible shape is an open object.
    schema = target === undefined ? { type: 'object', ...rest } : { ...target, ...rest };
    refDepth++;
  }

  if (Array.isArray(schema.allOf)) schema = mergeAllOf(schema);

  const out: Record<string, unknown> = {};
  let nullable = schema.nullable === true;

  // Type arrays: one type plus `nullable`; several non-null types become an `anyOf`.
  let type: unknown = schema.type;
  if (Array.isArray(type)) {
    const types = type.filter((t): t is string => typeof t === 'string');
    if (types.includes('null')) nullable = true;
    const nonNull = types.filter((t) => t !== 'null');
    if (nonNull.length === 1) type = nonNull[0];
    else if (nonNull.length > 1) {
      type = undefined;
      out.anyOf = nonNull.map((t) => sanitize({ ...schema, type: t, anyOf: undefined, oneOf: undefined }, root, refDepth));
    } else type = undefined;
  }
  if (type === 'null') {
    type = undefined;
    nullable = true;
  }

  const alternatives = Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : undefined;
  if (alternatives !== undefined) {
    const nonNull = alternatives.filter((alt) => !(isRecord(alt) && alt.type === 'null'));
    if (nonNull.length < alternatives.length) nullable = true;
    if (nonNull.length === 1) {
      // `anyOf: [X, {type: null}]` → X + nullable, keeping this node's own annotations.
      const merged = sanitize(nonNull[0], root, refDepth);
      for (const [key, value] of Object.entries(merged)) if (out[key] === undefined) out[key] = value;
    } else if (nonNull.length > 1) {
      out.anyOf = nonNull.map((alt) => sanitize(alt, root, refDepth));
    }
  }

  if (typeof type === 'string') out.type = type;

  for (const [key, value] of Object.entries(schema)) {
    if (!KEPT.has(key) || key === 'type' || key === 'anyOf' || key === 'nullable') continue;
    if (value === undefined) continue;
    switch (key) {
      case 'properties':
        if (isRecord(value)) {
          const properties: Record<string, JsonSchema> = {};
          for (const [name, child] of Object.entries(value)) properties[name] = sanitize(child, root, refDepth);
          if (Object.keys(properties).length > 0) out.properties = properties;
        }
        break;
      case 'items':
        if (isRecord(value)) out.items = sanitize(value, root, refDepth);
        break;
      case 'required':
        if (Array.isArray(value)) {
          const names = value.filter((n): n is string => typeof n === 'string');
          if (names.length > 0) out.required = names;
        }
        break;
      case 'enum':
        // Generate-Content enums are string enums only.
        if (Array.isArray(value) && value.every((v) => typeof v === 'string')) out.enum = value;
        break;
      case 'format': {
        const allowed = typeof out.type === 'string' ? FORMATS[out.type] : undefined;
        if (typeof value === 'string' && allowed?.has(value)) out.format = value;
        break;
      }
      default:
        out[key] = value;
    }
  }

  if (schema.const !== undefined && out.enum === undefined && typeof schema.const === 'string') {
    out.enum = [schema.const];
    if (out.type === undefined) out.type = 'string';
  }
  if (out.enum !== undefined && out.type === undefined) out.type = 'string';
  // A `required` name must exist in `properties`, or the upstream rejects the schema.
  if (Array.isArray(out.required)) {
    const properties = isRecord(out.properties) ? out.properties : {};
    const required = (out.required as string[]).filter((name) => name in properties);
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  if (nullable) out.nullable = true;
  return out;
}

function mergeAllOf(schema: Record<string, unknown>): Record<string, unknown> {
  const { allOf, ...rest } = schema;
  const merged: Record<string, unknown> = { ...rest };
  const properties: Record<string, unknown> = isRecord(rest.properties) ? { ...rest.properties } : {};
  const required = new Set<string>(Array.isArray(rest.required) ? rest.required.filter((n): n is string => typeof n === 'string') : []);
  for (const member of Array.isArray(allOf) ? allOf : []) {
    if (!isRecord(member)) continue;
    for (const [key, value] of Object.entries(member)) {
      if (key === 'properties' && isRecord(value)) Object.assign(properties, value);
      else if (key === 'required' && Array.isArray(value)) value.forEach((n) => typeof n === 'string' && required.add(n));
      else if (merged[key] === undefined) merged[key] = value;
    }
  }
  if (Object.keys(properties).length > 0) merged.properties = properties;
  if (required.size > 0) merged.required = [...required];
  return merged;
}

function resolveRef(ref: string, root: JsonSchema): Record<string, unknown> | undefined {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = root;
  for (const raw of ref
    .slice(1)
    .split('/')
    .filter((s) => s !== '')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isRecord(node)) return undefined;
    node = node[key];
  }
  return isRecord(node) ? node : undefined;
}
