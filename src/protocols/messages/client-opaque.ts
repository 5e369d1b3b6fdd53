/**
 * Opaque values of other origins (a Generate-Content thought signature, Responses encrypted
 * reasoning and item ids) have no field in Messages. When a Messages client is shown such an
 * answer, they ride inside strings the client sends back verbatim: the `tool_use.id` and the
 * thinking block's `signature`. Decoding the client's next request recovers them, so the IR sees
 * the original id and opaque values again and the other-origin upstream gets them back.
 */
import type { Opaque } from '../../ir/opaque';
import { unwrapOpaque, wrapOpaque } from '../shared/wrap-opaque';
import type { ReasoningPart } from '../../ir/parts';
import { isProtocol } from '../../ir/protocol';
import { sanitizeToolCallId } from '../shared/tool-call-ids';
import { isRecord, parseJson, readString } from '../shared/read-json';

/** The `tool_use.id` shown to the client for a call. */
export function encodeClientToolUseId(id: string, signature: Opaque | undefined): string {
  if (signature === undefined || signature.origin === 'messages') return sanitizeToolCallId(id);
  return wrapOpaque({ origin: signature.origin, value: JSON.stringify({ id, signature: signature.value }) });
}

/** The inverse of `encodeClientToolUseId`: an id the gateway did not pack comes back unchanged. */
export function decodeClientToolUseId(raw: string): { id: string; signature?: Opaque } {
  const opaque = unwrapOpaque(raw);
  if (opaque === undefined) return { id: raw };
  const packed = parseJson(opaque.value);
  if (!isRecord(packed)) return { id: raw };
  const id = readString(packed, 'id');
  const signature = readString(packed, 'signature');
  if (id === undefined || signature === undefined) return { id: raw };
  return { id, signature: { origin: opaque.origin, value: signature } };
}

type ReasoningOpaques = Pick<ReasoningPart, 'signature' | 'redacted' | 'encrypted' | 'itemId'>;
const OPAQUE_FIELDS = ['signature', 'redacted', 'encrypted', 'itemId'] as const;

/**
 * The `signature` of the thinking block shown to the client: the Messages signature itself, or
 * every other-origin opaque of the part packed into one string, or `''` when there is none.
 */
export function encodeClientThinkingSignature(part: ReasoningOpaques): string {
  if (part.signature?.origin === 'messages') return part.signature.value;
  const foreign: Record<string, Opaque> = {};
  let origin: Opaque['origin'] | undefined;
  for (const field of OPAQUE_FIELDS) {
    const value = part[field];
    if (value === undefined || value.origin === 'messages') continue;
    foreign[field] = value;
    origin ??= value.origin;
  }
  if (origin === undefined) return '';
  return wrapOpaque({ origin, value: JSON.stringify(foreign) });
}

/** The inverse of `encodeClientThinkingSignature`; a real Messages signature stays a Messages opaque. */
export function decodeClientThinkingSignature(signature: string): ReasoningOpaques {
  if (signature === '') return {};
  const opaque = unwrapOpaque(signature);
  const packed = opaque === undefined ? undefined : parseJson(opaque.value);
  if (!isRecord(packed)) return { signature: { origin: 'messages', value: signature } };
  const out: ReasoningOpaques = {};
  for (const field of OPAQUE_FIELDS) {
    const entry = packed[field];
    if (!isRecord(entry)) continue;
    const origin = entry.origin;
    const value = readString(entry, 'value');
    if (isProtocol(origin) && value !== undefined) out[field] = { origin, value };
  }
  return out;
}
