import type { Protocol } from './protocol';

/**
 * An opaque provider value (Messages thinking `signature` / `redacted_thinking.data`, Responses
 * `encrypted_content` and item ids, Generate-Content `thoughtSignature`), tagged with the upstream
 * protocol that produced it. It is replayed only to that same protocol and dropped for any other:
 * cross-family replay fails upstream ("Invalid `signature` in `thinking` block").
 */
export interface Opaque {
  origin: Protocol;
  value: string;
}
