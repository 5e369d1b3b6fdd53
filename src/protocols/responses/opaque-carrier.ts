/**
 * Opaque values of other protocols ride through a Responses client inside strings the client sends
 * back verbatim: a tool call's thought signature inside its `call_id`, a thinking signature or
 * redacted thinking inside the reasoning item's `encrypted_content`. Both use `wrapOpaque`, whose
 * payload here is a small JSON envelope so the original id (or the kind of value) survives too.
 */
import type { Opaque } from '../../ir/opaque';
import { unwrapOpaque, wrapOpaque } from '../shared/wrap-opaque';
import type { CodecContext } from '../codec';
import { expandId, fitId } from '../shared/fit-id';
import type { ReasoningPart } from '../../ir/parts';

interface CallIdEnvelope {
  id: string;
  signature: string;
}

interface ReasoningEnvelope {
  signature?: string;
  redacted?: string;
}

function parseEnvelope(value: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The `call_id` shown to the client: the id itself, or the id and a foreign signature wrapped
 * together (kept in the gateway's store behind a short id when that exceeds the 64-character limit).
 */
export function encodeCallId(id: string, signature: Opaque | undefined, context: CodecContext): string {
  if (signature === undefined || signature.origin === 'responses') return id;
  const envelope: CallIdEnvelope = { id, signature: signature.value };
  return fitId(wrapOpaque({ origin: signature.origin, value: JSON.stringify(envelope) }), context);
}

export function decodeCallId(callId: string, context: CodecContext): { id: string; signature?: Opaque } {
  const opaque = unwrapOpaque(expandId(callId, context));
  if (opaque === undefined) return { id: callId };
  const envelope = parseEnvelope(opaque.value);
  if (envelope === undefined || typeof envelope.id !== 'string' || typeof envelope.signature !== 'string') {
    return { id: callId };
  }
  return { id: envelope.id, signature: { origin: opaque.origin, value: envelope.signature } };
}

/**
 * The `encrypted_content` shown to the client for a reasoning part: Responses' own encrypted
 * content verbatim, or a foreign signature / redacted payload wrapped. Undefined when there is none.
 */
export function encodeReasoningCarrier(part: Pick<ReasoningPart, 'encrypted' | 'signature' | 'redacted'>): string | undefined {
  if (part.encrypted?.origin === 'responses') return part.encrypted.value;
  const foreign = part.signature ?? part.redacted;
  if (foreign === undefined || foreign.origin === 'responses') return undefined;
  const envelope: ReasoningEnvelope = {};
  if (part.signature !== undefined) envelope.signature = part.signature.value;
  if (part.redacted !== undefined) envelope.redacted = part.redacted.value;
  return wrapOpaque({ origin: foreign.origin, value: JSON.stringify(envelope) });
}

/** Reads a client's `encrypted_content` back into the reasoning part's opaque fields. */
export function decodeReasoningCarrier(encryptedContent: string): Pick<ReasoningPart, 'encrypted' | 'signature' | 'redacted'> {
  const opaque = unwrapOpaque(encryptedContent);
  const envelope = opaque === undefined ? undefined : parseEnvelope(opaque.value);
  if (opaque === undefined || envelope === undefined) {
    return { encrypted: { origin: 'responses', value: encryptedContent } };
  }
  const result: Pick<ReasoningPart, 'encrypted' | 'signature' | 'redacted'> = {};
  if (typeof envelope.signature === 'string') result.signature = { origin: opaque.origin, value: envelope.signature };
  if (typeof envelope.redacted === 'string') result.redacted = { origin: opaque.origin, value: envelope.redacted };
  return result;
}

/** Whether an `encrypted_content` string is one of our carriers rather than the provider's own. */
export function isForeignCarrier(encryptedContent: string): boolean {
  return unwrapOpaque(encryptedContent) !== undefined;
}
