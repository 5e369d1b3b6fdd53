/** Key status and expiry → 401, checked on every use (a cached key may expire between two requests). */
import { GatewayError } from '../errors/gateway-error';
import type { AuthenticatedKey } from './authenticated-key';

export type InactiveReason = 'revoked' | 'disabled' | 'expired';

export function inactiveReason(key: AuthenticatedKey, nowMs: number): InactiveReason | undefined {
  if (key.status === 'revoked' || key.status === 'disabled' || key.status === 'expired') return key.status;
  if (key.expiresAt !== null && key.expiresAt <= nowMs) return 'expired';
  return undefined;
}

export function assertKeyActive(key: AuthenticatedKey, nowMs: number, headers?: Record<string, string>): void {
  const reason = inactiveReason(key, nowMs);
  if (reason !== undefined) throw new GatewayError('authentication', `API key ${reason}`, { headers });
}
