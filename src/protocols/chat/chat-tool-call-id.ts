/**
 * A Chat client has no field for a tool call's opaque signature (a Generate-Content
 * `thoughtSignature`), but it sends the tool call id back verbatim, on the assistant message and
 * on the `role: tool` answer. So the id a Chat client sees carries both: the original id and the
 * signature, wrapped with `wrapOpaque` (kept in the gateway's store behind a short id when longer
 * than 64 characters). Ids without a signature are shown unchanged.
 */
import type { Opaque } from '../../ir/opaque';
import { unwrapOpaque, wrapOpaque } from '../shared/wrap-opaque';
import type { CodecContext } from '../codec';
import { expandId, fitId } from '../shared/fit-id';

export function embedToolCallId(id: string, signature: Opaque | undefined, context: CodecContext): string {
  if (signature === undefined) return id;
  return fitId(wrapOpaque({ origin: signature.origin, value: JSON.stringify([id, signature.value]) }), context);
}

export function recoverToolCallId(shown: string, context: CodecContext): { id: string; signature?: Opaque } {
  const text = expandId(shown, context);
  const opaque = unwrapOpaque(text);
  if (opaque === undefined) return { id: text };
  try {
    const pair: unknown = JSON.parse(opaque.value);
    if (Array.isArray(pair) && pair.length === 2 && typeof pair[0] === 'string' && typeof pair[1] === 'string') {
      return { id: pair[0], signature: { origin: opaque.origin, value: pair[1] } };
    }
  } catch {
    // Not our pair: a bare wrapped value (another component's convention); keep it whole.
  }
  return { id: text, signature: opaque };
}
