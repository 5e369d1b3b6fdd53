/**
 * Key status and expiry, checked on every use (a cached key may expire between two requests):
 * revoked, disabled, expired → 401; a private routing group no longer granted to the key's account
 * → 403 `permission_error` naming the group (issue 21, finding 10).
 */
import { GatewayError } from '../errors/gateway-error';
import type { AuthenticatedKey } from './authenticated-key';

export type InactiveReason = 'revoked' | 'disabled' | 'expired' | 'group_not_granted';

export function inactiveReason(key: AuthenticatedKey, nowMs: number): InactiveReason | undefined {
  if (key.status !== 'active') return key.status;
  if (key.expiresAt !== null && key.expiresAt <= nowMs) return 'expired';
  return undefined;
}

/** The error for a key that is not usable, in the gateway's kinds (each codec renders its envelope). */
export function inactiveKeyError(
  key: Pick<AuthenticatedKey, 'groupName'>,
  reason: InactiveReason,
  headers?: Record<string, string>,
): GatewayError {
  if (reason === 'group_not_granted') {
    return new GatewayError('permission', `API key's routing group ${key.groupName} is not granted to this account`, { headers });
  }
  return new GatewayError('authentication', `API key ${reason}`, { headers });
}

export function assertKeyActive(key: AuthenticatedKey, nowMs: number, headers?: Record<string, string>): void {
  const reason = inactiveReason(key, nowMs);
  if (reason !== undefined) throw inactiveKeyError(key, reason, headers);
}
