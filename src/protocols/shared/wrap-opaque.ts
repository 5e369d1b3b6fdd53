/**
 * The wire form of an opaque value (ir/opaque.ts) inside a string a client sends back verbatim: the
 * origin protocol as a one-letter tag, then the value.
 */
import type { Opaque } from '../../ir/opaque';
import type { Protocol } from '../../ir/protocol';

const ORIGIN_TAGS: Record<Protocol, string> = {
  messages: 'm',
  responses: 'r',
  chat: 'c',
  'generate-content': 'g',
};

const PREFIX = 'gw1';

/**
 * When an opaque value must travel through a client protocol that has no field for it (for
 * example a Generate-Content `thoughtSignature` on a tool call returned to a Chat client), it is
 * embedded in a string the client will send back verbatim, as `gw1_<tag>_<base64url value>`.
 * The alphabet fits Messages' tool id pattern `^[a-zA-Z0-9_-]+$`.
 */
export function wrapOpaque(opaque: Opaque): string {
  return `${PREFIX}_${ORIGIN_TAGS[opaque.origin]}_${Buffer.from(opaque.value, 'utf8').toString('base64url')}`;
}

export function unwrapOpaque(text: string): Opaque | undefined {
  if (!text.startsWith(`${PREFIX}_`)) return undefined;
  const tag = text.slice(PREFIX.length + 1, PREFIX.length + 2);
  if (text[PREFIX.length + 2] !== '_') return undefined;
  const origin = (Object.keys(ORIGIN_TAGS) as Protocol[]).find((p) => ORIGIN_TAGS[p] === tag);
  if (!origin) return undefined;
  return { origin, value: Buffer.from(text.slice(PREFIX.length + 3), 'base64url').toString('utf8') };
}
