import { GatewayError } from '../errors/gateway-error';

/** The key was revoked, rotated or deleted while its request ran (on any API process). */
export function keyInvalidatedError(): GatewayError {
  return new GatewayError('authentication', 'API key was revoked, rotated or deleted');
}
