/** The gateway surfaces' key check (`x-api-key` or Bearer, never the body) and the caller's address. */
import type { Request } from 'express';
import type { AuthenticatedKey } from '../auth/authenticated-key';
import { createClientIpResolver } from '../auth/client-ip';
import { extractCredential } from '../auth/extract-credential';
import type { KeyAuthenticator } from '../auth/key-authenticator';
import { GatewayError } from '../errors/gateway-error';
import { noteCaller } from '../http/request-context';

export interface CallerAuthentication {
  authenticate(request: Request): Promise<AuthenticatedKey>;
  clientIp(request: Request): string;
}

export function createCallerAuthentication(authenticator: KeyAuthenticator, trustedProxies: readonly string[]): CallerAuthentication {
  const resolveIp = createClientIpResolver(trustedProxies);
  return {
    async authenticate(request) {
      const secret = extractCredential('gateway', request.headers, request.query as Record<string, unknown>);
      if (!secret) throw new GatewayError('authentication', 'missing API key: send x-api-key or Authorization: Bearer');
      const key = await authenticator.authenticate(secret);
      // The request log (issue 22): images and tasks are recorded under their surface's name.
      if (request.res) noteCaller(request.res, key, request.path.startsWith('/v1/tasks') ? 'tasks' : 'images');
      return key;
    },
    clientIp(request) {
      const forwarded = request.headers['x-forwarded-for'];
      return resolveIp(request.socket.remoteAddress, Array.isArray(forwarded) ? forwarded.join(',') : forwarded);
    },
  };
}
