/**
 * Generators of hostile input for the fuzz suite: values of every wrong type, numbers at the edges,
 * text with control characters, NUL and lone surrogates, deep nesting, huge strings, and mutations
 * (set, delete, add unknown) applied to a valid request at its known fields.
 */
import fc from 'fast-check';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udfff',
    '\ud83d\ude00',
    '\u202e',
    '\r\n',
    '\u0007\u001b[31m',
    '../../etc/passwd',
    '%zz',
    '%00',
    '<script>',
    '${jndi:x}',
    "'; DROP TABLE accounts; --",
    'null',
    '1e309',
    '-1',
    'NaN',
  ),
  fc.constantFrom('x'.repeat(70_000), '\u0000'.repeat(1_000)),
);

export const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -1, -0.5, 0.5, 1, 2 ** 31, 2 ** 53 + 1, -(2 ** 53), 1e21, 1e308, -1e308, 5e-324),
);

/** `[[[...]]]` or `{"a":{"a":...}}` nested `depth` levels (as JSON text, spliced in by the caller). */
export function nestedJson(depth: number, kind: 'array' | 'object'): string {
  return kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

/** Marks a value to be replaced by nested JSON text when the body is serialized. */
export const DEEP_MARK = '__fuzz_deep__';
const deep = fc
  .record({ depth: fc.integer({ min: 20, max: 5_000 }), kind: fc.constantFrom('array' as const, 'object' as const) })
  .map(({ depth, kind }) => `${DEEP_MARK}${kind}:${depth}`);

export const hostileValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 3, arbitrary: hostileText },
  { weight: 3, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, false, [], {}, [null], { '': null }, { '\u0000': 1 }) },
  { weight: 1, arbitrary: deep },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json> },
);

/** Serializes a body, replacing deep marks by nested JSON. */
export function serialize(body: unknown): string {
  return JSON.stringify(body).replace(
    new RegExp(`"${DEEP_MARK}(array|object):(\\d+)"`, 'g'),
    (_match, kind: 'array' | 'object', depth: string) => nestedJson(Number(depth), kind),
  );
}

type Mutation =
  | { kind: 'set'; path: string; value: Json }
  | { kind: 'delete'; path: string }
  | { kind: 'unknown'; path: string; name: string; value: Json };

function clone<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

function walk(
  root: Record<string, Json>,
  path: string,
  create: boolean,
): { parent: Record<string, Json> | Json[]; key: string } | undefined {
  const parts = path.split('.');
  let current: Json = root;
  for (const part of parts.slice(0, -1)) {
    if (typeof current !== 'object' || current === null) return undefined;
    const container: Record<string, Json> | Json[] = current;
    let next: Json | undefined = (container as Record<string, Json>)[part];
    if ((typeof next !== 'object' || next === null) && create) {
      next = /^\d+$/.test(parts[parts.indexOf(part) + 1] ?? '') ? [] : {};
      (container as Record<string, Json>)[part] = next;
    }
    current = next ?? null;
  }
  if (typeof current !== 'object' || current === null) return undefined;
  return { parent: current, key: parts[parts.length - 1]! };
}

function apply(body: Record<string, Json>, mutation: Mutation): void {
  if (mutation.kind === 'set') {
    const at = walk(body, mutation.path, true);
    if (at) (at.parent as Record<string, Json>)[at.key] = mutation.value;
  } else if (mutation.kind === 'delete') {
    const at = walk(body, mutation.path, false);
    if (at) delete (at.parent as Record<string, Json>)[at.key];
  } else {
    const at = mutation.path === '' ? { parent: body, key: '' } : walk(body, `${mutation.path}.x`, false);
    if (at && !Array.isArray(at.parent)) (at.parent as Record<string, Json>)[mutation.name] = mutation.value;
  }
}

/** A valid body with 1–3 mutations at its known fields (or, sometimes, replaced by any JSON value). */
export function mutatedBody(base: Record<string, Json>, fields: string[]): fc.Arbitrary<Json> {
  const path = fc.constantFrom(...fields);
  const mutation: fc.Arbitrary<Mutation> = fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('set' as const), path, value: hostileValue }) },
    { weight: 2, arbitrary: fc.record({ kind: fc.constant('delete' as const), path }) },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('unknown' as const),
        path: fc.constantFrom('', ...fields),
        name: hostileText.filter((s) => s.length < 100),
        value: hostileValue,
      }),
    },
  );
  return fc.oneof(
    {
      weight: 12,
      arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }).map((mutations) => {
        const body = clone(base);
        for (const m of mutations) apply(body, m);
        return body;
      }),
    },
    { weight: 1, arbitrary: hostileValue },
  );
}

/** A path segment: a hostile one as is, or any text percent-encoded. */
export const pathSegment = fc.oneof(
  fc.constantFrom(
    'v1',
    'v1beta',
    'api',
    'models',
    'messages',
    'chat',
    'completions',
    'responses',
    'keys',
    'me',
    'usage',
    'tasks',
    'stream',
    'images',
    'generations',
    'edits',
    'submit',
    'query',
    'cancel',
    'reveal',
    'rotate',
    'auth',
    'login',
    'billing',
    'transactions',
    '%zz',
    '%00',
    '%ff',
    '%e0%80',
    '%',
    '..',
    '%2e%2e',
    '%2f',
    'gemini-2.5-flash:generateContent',
    'x:streamGenerateContent',
    ':',
    '1',
    '0',
    '-1',
    '99999999999999999999',
    'task_0123456789',
  ),
  hostileText.filter((text) => text.length < 200).map(percentEncode),
);

/** encodeURIComponent, except that a lone surrogate becomes its (invalid) UTF-8 bytes instead of a throw. */
function percentEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    return '%ED%A0%80';
  }
}

/** Identifiers with bytes PostgreSQL cannot hold (U+0000, unpaired surrogates), behind real prefixes (issue 21 finding 9). */
export const hostileId = fc
  .tuple(
    fc.constantFrom('resp_', 'task_', 'msg_', 'sk-svc-', ''),
    fc.constantFrom('\u0000', 'a\u0000b', '\u0000'.repeat(3), '\ud800', 'x\udfff', '\u0000\ud800'),
    fc.string({ maxLength: 24 }),
  )
  .map(([prefix, bad, tail]) => `${prefix}${bad}${tail}`);

const byte = fc.integer({ min: 0, max: 255 });
const hex16 = (high: number, low: number) => ((high << 8) | low).toString(16);

/** An IPv4 address no gateway may fetch from on a caller's behalf, as four octets. */
export const internalIpv4 = fc.oneof(
  fc.tuple(fc.constant(127), byte, byte, byte),
  fc.tuple(fc.constant(10), byte, byte, byte),
  fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), byte, byte),
  fc.tuple(fc.constant(192), fc.constant(168), byte, byte),
  fc.tuple(fc.constant(169), fc.constant(254), byte, byte),
  fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), byte, byte),
  fc.tuple(fc.constant(0), byte, byte, byte),
  fc.constant([169, 254, 169, 254] as [number, number, number, number]),
);

/** Every spelling of an internal address a URL host can take (issue 21 finding 1): IPv4 forms and each IPv6 form that embeds IPv4. */
export const internalHost = fc.oneof(
  fc
    .tuple(internalIpv4, fc.constantFrom('dotted', 'decimal', 'hex', 'mapped', 'mapped-hex', 'compatible', 'siit', 'nat64', '6to4'))
    .map(([[a, b, c, d], form]) => {
      const dotted = `${a}.${b}.${c}.${d}`;
      const high = hex16(a, b);
      const low = hex16(c, d);
      switch (form) {
        case 'dotted':
          return dotted;
        case 'decimal':
          return String(((a << 24) >>> 0) + (b << 16) + (c << 8) + d);
        case 'hex':
          return `0x${a.toString(16)}.${b}.${c}.${d}`;
        case 'mapped':
          return `[::ffff:${dotted}]`;
        case 'mapped-hex':
          return `[::ffff:${high}:${low}]`;
        case 'compatible':
          return `[::${dotted}]`;
        case 'siit':
          return `[::ffff:0:${high}:${low}]`;
        case 'nat64':
          return `[64:ff9b::${high}:${low}]`;
        default:
          return `[2002:${high}:${low}::1]`;
      }
    }),
  fc.constantFrom(
    '[::1]',
    '[::]',
    '[fe80::1]',
    '[fd00::1]',
    '[fc00::abcd]',
    '[fec0::1]',
    '[ff02::1]',
    'localhost',
    '[0:0:0:0:0:0:0:1]',
    '[::ffff:0:0]',
  ),
);
