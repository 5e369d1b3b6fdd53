/**
 * The gateway surfaces' key check (`x-api-key` or Bearer, never the body) from the caller's
 * resolved address (the key's IP rules are enforced by the authenticator), and that address.
 */
import type { Request } from 'express';
import type { AuthenticatedKey } from './authenticated-key';
import { createClientIpResolver } from './client-ip';
import { extractCredential, GATEWAY_CREDENTIALS } from './extract-credential';
import type { KeyAuthenticator } from './key-authenticator';
import { GatewayError } from '../errors/gateway-error';
import { noteCaller } from '../http/request-context';

export interface CallerAuthentication {
  /** The gateway surface's credential (`x-api-key` or Bearer). */
  authenticate(request: Request): Promise<AuthenticatedKey>;
  /** A credential the route extracted itself (a protocol's own header or `?key=`). */
  authenticateSecret(secret: string, request: Request): Promise<AuthenticatedKey>;
  clientIp(request: Request): string;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(',') : value;
}

function surfaceOf(path: string): string {
  if (path.startsWith('/v1/tasks')) return 'tasks';
  if (path.startsWith('/v1/images')) return 'images';
  if (path.startsWith('/v1/models')) return 'models';
  return 'gateway';
}

export function createCallerAuthentication(authenticator: KeyAuthenticator, trustedProxies: readonly string[]): CallerAuthentication {
  const resolveIp = createClientIpResolver(trustedProxies);
  const clientIp = (request: Request) => resolveIp(request.socket.remoteAddress, headerText(request.headers['x-forwarded-for']));
  return {
    async authenticate(request) {
      const secret = extractCredential(GATEWAY_CREDENTIALS, request.headers, request.query as Record<string, unknown>);
      if (!secret) throw new GatewayError('authentication', 'missing API key: send x-api-key or Authorization: Bearer');
      const key = await authenticator.authenticate(secret, clientIp(request));
      // The request log: these surfaces are recorded under their own name.
      if (request.res) noteCaller(request.res, key, surfaceOf(request.path));
      return key;
    },
    authenticateSecret: (secret, request) => authenticator.authenticate(secret, clientIp(request)),
    clientIp,
  };
}
