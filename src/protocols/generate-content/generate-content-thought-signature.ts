/**
 * `thoughtSignature` is the one field a Generate-Content client echoes back verbatim, so it also
 * carries opaque values of other protocols (a Messages thinking signature, Responses encrypted
 * reasoning) through a Generate-Content client: those are wrapped with `wrapOpaque`, while a
 * Generate-Content signature travels as itself.
 */
import type { Opaque } from '../../ir/opaque';
import { unwrapOpaque, wrapOpaque } from '../shared/wrap-opaque';
import type { ReasoningPart } from '../../ir/parts';

export const GENERATE_CONTENT: Opaque['origin'] = 'generate-content';

export type ReasoningOpaques = Pick<ReasoningPart, 'signature' | 'redacted' | 'encrypted' | 'itemId'>;

/** The JSON kept inside a wrapped value when a reasoning part of another origin carries several opaques. */
interface ReasoningEnvelope {
  s?: string;
  r?: string;
  e?: string;
  i?: string;
}

/** A tool call's signature → the string to put in `thoughtSignature`. */
export function signatureToThoughtSignature(signature: Opaque): string {
  return signature.origin === GENERATE_CONTENT ? signature.value : wrapOpaque(signature);
}

/** A client's `thoughtSignature` on a tool call → the opaque value it stands for. */
export function thoughtSignatureToSignature(thoughtSignature: string): Opaque {
  const unwrapped = unwrapOpaque(thoughtSignature);
  if (!unwrapped || unwrapped.origin === GENERATE_CONTENT) return { origin: GENERATE_CONTENT, value: unwrapped?.value ?? thoughtSignature };
  const envelope = parseEnvelope(unwrapped.value);
  return envelope?.s !== undefined ? { origin: unwrapped.origin, value: envelope.s } : unwrapped;
}

/** A reasoning part's opaque values → one `thoughtSignature` string, or undefined when it has none. */
export function reasoningToThoughtSignature(part: ReasoningOpaques): string | undefined {
  const present = [part.signature, part.redacted, part.encrypted, part.itemId].filter((o): o is Opaque => o !== undefined);
  if (present.length === 0) return undefined;
  if (present.length === 1 && part.signature?.origin === GENERATE_CONTENT) return part.signature.value;
  const origin = present[0].origin;
  const pick = (o: Opaque | undefined): string | undefined => (o !== undefined && o.origin === origin ? o.value : undefined);
  const envelope: ReasoningEnvelope = {
    s: pick(part.signature),
    r: pick(part.redacted),
    e: pick(part.encrypted),
    i: pick(part.itemId),
  };
  return wrapOpaque({ origin, value: JSON.stringify(envelope) });
}

/** A client's `thoughtSignature` on a thought or text part → the reasoning opaques it stands for. */
export function thoughtSignatureToReasoning(thoughtSignature: string): ReasoningOpaques {
  const unwrapped = unwrapOpaque(thoughtSignature);
  if (!unwrapped) return { signature: { origin: GENERATE_CONTENT, value: thoughtSignature } };
  if (unwrapped.origin === GENERATE_CONTENT) return { signature: unwrapped };
  const envelope = parseEnvelope(unwrapped.value);
  if (!envelope) return { signature: unwrapped };
  const origin = unwrapped.origin;
  const out: ReasoningOpaques = {};
  if (envelope.s !== undefined) out.signature = { origin, value: envelope.s };
  if (envelope.r !== undefined) out.redacted = { origin, value: envelope.r };
  if (envelope.e !== undefined) out.encrypted = { origin, value: envelope.e };
  if (envelope.i !== undefined) out.itemId = { origin, value: envelope.i };
  return out;
}

function parseEnvelope(value: string): ReasoningEnvelope | undefined {
  if (!value.startsWith('{')) return undefined;
  try {
    const parsed: unknown = JSON.parse(value);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
    const record = parsed as Record<string, unknown>;
    const envelope: ReasoningEnvelope = {};
    for (const key of ['s', 'r', 'e', 'i'] as const) {
      const field = record[key];
      if (typeof field === 'string') envelope[key] = field;
      else if (field !== undefined) return undefined;
    }
    return envelope;
  } catch {
    return undefined;
  }
}
