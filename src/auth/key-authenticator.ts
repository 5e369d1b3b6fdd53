/** The authentication contract used by every route. Implemented by the keys/auth module. */
import type { AuthenticatedKey } from './authenticated-key';

export interface KeyAuthenticator {
  /**
   * Looks up a plaintext secret (HMAC, per-process cache invalidated over Redis pub/sub) used from
   * `clientIp` (the caller's resolved address: client-ip.ts). Throws GatewayError('authentication')
   * for unknown, revoked, disabled, expired or deleted keys and IpRuleRefusal (403) when the key's
   * IP rules refuse the address: every key-authenticated route enforces them by authenticating.
   */
  authenticate(secret: string, clientIp: string): Promise<AuthenticatedKey>;
  /**
   * Resolves when the key stops being valid (rotated, revoked, disabled, deleted) on any API process;
   * used to cut open streams. Returns an unsubscribe function.
   */
  onInvalidated(secretHmac: string, listener: () => void): () => void;
  /**
   * A key's stored state changed: drops it from this process's cache at once (the caller's next
   * request sees the change, whatever pub/sub's delivery order) and tells every process, this one
   * included, over Redis pub/sub. Rejects when Redis could not be told; the local drop stands.
   */
  invalidate(secretHmac: string): Promise<void>;
}
