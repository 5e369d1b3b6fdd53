/** The authentication contract used by every route. Implemented by the keys/auth module. */
import type { AuthenticatedKey } from './authenticated-key';

export interface KeyAuthenticator {
  /**
   * Looks up a plaintext secret (HMAC, per-process cache invalidated over Redis pub/sub).
   * Throws GatewayError('authentication') for unknown, revoked, disabled, expired or deleted keys.
   */
  authenticate(secret: string): Promise<AuthenticatedKey>;
  /**
   * Resolves when the key stops being valid (rotated, revoked, disabled, deleted) on any API process;
   * used to cut open streams. Returns an unsubscribe function.
   */
  onInvalidated(secretHmac: string, listener: () => void): () => void;
}
