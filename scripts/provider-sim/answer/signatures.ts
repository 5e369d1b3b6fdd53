/**
 * Opaque reasoning blobs the simulator hands out and later checks on replay, one format per family
 * so that a blob replayed to the wrong family is rejected like the real APIs do:
 * Messages thinking `signature`, Responses reasoning `encrypted_content`, Generate-Content
 * `thoughtSignature`. Each is deterministic in the text it signs.
 */
import { createHash } from 'node:crypto';

const SECRET = 'provider-sim/v1';

function digest(family: string, text: string): Buffer {
  return createHash('sha256').update(SECRET).update('\u0000').update(family).update('\u0000').update(text).digest();
}

/** Messages: base64 of a 3-byte family tag (it reads `EsiA`) and the digest of the thinking text. */
export function thinkingSignature(thinking: string): string {
  return Buffer.concat([Buffer.from('EsiA', 'base64'), digest('messages', thinking)]).toString('base64');
}

export function isValidThinkingSignature(thinking: string, signature: string): boolean {
  return signature === thinkingSignature(thinking);
}

/** Responses: Fernet-looking token carrying the reasoning text, so a replay can be verified alone. */
export function encryptedReasoning(text: string): string {
  const payload = JSON.stringify({ t: text, d: digest('responses', text).toString('base64url') });
  return `gAAAAB${Buffer.from(payload, 'utf8').toString('base64url')}`;
}

/** The reasoning text inside a valid blob, or null when the blob was not made here. */
export function decodeEncryptedReasoning(blob: string): string | null {
  if (!blob.startsWith('gAAAAB')) return null;
  try {
    const payload: unknown = JSON.parse(Buffer.from(blob.slice(6), 'base64url').toString('utf8'));
    if (typeof payload !== 'object' || payload === null) return null;
    const { t, d } = payload as { t?: unknown; d?: unknown };
    if (typeof t !== 'string' || d !== digest('responses', t).toString('base64url')) return null;
    return t;
  } catch {
    return null;
  }
}

/** Generate-Content: signs the part it travels on (its text or its function call's name). */
export function thoughtSignature(signed: string): string {
  return Buffer.concat([Buffer.from('Cg==', 'base64'), digest('generate-content', signed)]).toString('base64');
}

/** Gemini documents these values as accepted in place of a real signature (migrated histories). */
const DOCUMENTED_BYPASS = new Set(['skip_thought_signature_validator', 'context_engineering_is_the_way_to_go']);

/** Checks the form only: Gemini cannot tie a signature to a part the client may have edited. */
export function isWellFormedThoughtSignature(signature: string): boolean {
  if (DOCUMENTED_BYPASS.has(signature)) return true;
  const bytes = Buffer.from(signature, 'base64');
  return bytes.length === 33 && bytes[0] === 0x0a && bytes.toString('base64') === signature;
}
