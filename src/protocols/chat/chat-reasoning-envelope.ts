/**
 * A Chat client sees reasoning as plain `reasoning_content` text and has no field for the opaque
 * values around it (Messages thinking `signature` and `redacted_thinking`, Responses
 * `encrypted_content` and `rs_` ids). Replaying them is what keeps thinking-with-tools
 * conversations valid upstream, so they travel in this gateway's `reasoning_signature` field: every
 * reasoning block of the message (text included, byte for byte, since signatures cover it) as JSON,
 * wrapped with `wrapOpaque`. The official SDK keeps the last value of an unknown delta field, and
 * agent loops send the assistant message back as received, so the value comes back verbatim.
 */
import { z } from 'zod';
import type { Opaque } from '../../ir/opaque';
import { unwrapOpaque, wrapOpaque } from '../shared/wrap-opaque';
import type { ReasoningPart } from '../../ir/parts';
import type { Protocol } from '../../ir/protocol';

const entrySchema = z.object({
  text: z.string(),
  signature: z.string().optional(),
  redacted: z.string().optional(),
  encrypted: z.string().optional(),
  itemId: z.string().optional(),
});
type Entry = z.infer<typeof entrySchema>;

const OPAQUE_FIELDS = ['signature', 'redacted', 'encrypted', 'itemId'] as const;

function originOf(parts: readonly ReasoningPart[]): Protocol | undefined {
  for (const part of parts) {
    for (const field of OPAQUE_FIELDS) {
      const value = part[field];
      if (value !== undefined) return value.origin;
    }
  }
  return undefined;
}

/** The field value for these reasoning blocks, or undefined when none carries an opaque value. */
export function wrapReasoningEnvelope(parts: readonly ReasoningPart[]): string | undefined {
  const origin = originOf(parts);
  if (origin === undefined) return undefined;
  const entries = parts.map((part) => {
    const entry: Entry = { text: part.text };
    for (const field of OPAQUE_FIELDS) {
      const value = part[field];
      // One answer comes from one upstream, so all values share an origin; a stray one is not replayable.
      if (value !== undefined && value.origin === origin) entry[field] = value.value;
    }
    return entry;
  });
  return wrapOpaque({ origin, value: JSON.stringify(entries) });
}

/** The reasoning blocks a client sent back, or undefined when the value is not one of ours. */
export function unwrapReasoningEnvelope(text: string): ReasoningPart[] | undefined {
  const opaque = unwrapOpaque(text);
  if (opaque === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(opaque.value);
  } catch {
    return undefined;
  }
  const result = z.array(entrySchema).safeParse(parsed);
  if (!result.success) return undefined;
  const tag = (value: string | undefined): Opaque | undefined => (value === undefined ? undefined : { origin: opaque.origin, value });
  return result.data.map((entry) => {
    const part: ReasoningPart = { type: 'reasoning', text: entry.text };
    const signature = tag(entry.signature);
    const redacted = tag(entry.redacted);
    const encrypted = tag(entry.encrypted);
    const itemId = tag(entry.itemId);
    if (signature) part.signature = signature;
    if (redacted) part.redacted = redacted;
    if (encrypted) part.encrypted = encrypted;
    if (itemId) part.itemId = itemId;
    return part;
  });
}
