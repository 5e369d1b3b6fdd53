/**
 * Authentication of the management surface (`/api/v1/*`, `/v1/keys`): a console session cookie, or
 * an API key (`x-api-key`, else Bearer) of any active key; either way the caller acts for one
 * account. A key, when sent, takes precedence over a cookie (scripts must not depend on a stale
 * browser session). Cookie-authenticated state changes need the session's CSRF token in
 * `x-csrf-token`: a cookie is sent by the browser on cross-site requests, a custom header is not.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { createCallerAuthentication } from './authenticate-caller';
import { csrfTokenMatches, findConsoleSession, SESSION_COOKIE, type ConsoleSession } from './console-session';
import { extractCredential, GATEWAY_CREDENTIALS } from './extract-credential';
import type { KeyAuthenticator } from './key-authenticator';
import { readCookie } from './read-cookie';

export interface ManagementPrincipal {
  accountId: number;
  via: 'session' | 'key';
  keyId?: number;
  userId?: number;
  /** The console user's email (sessions only): the audit log's readable actor. */
  userEmail?: string;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The principal set by the management auth middleware; a route mounted without it is a bug. */
export function managementPrincipal(res: Response): ManagementPrincipal {
  const principal = (res.locals as { principal?: ManagementPrincipal }).principal;
  if (!principal) throw new GatewayError('internal', 'management route reached without authentication');
  return principal;
}

function setPrincipal(res: Response, principal: ManagementPrincipal): void {
  (res.locals as { principal?: ManagementPrincipal }).principal = principal;
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

async function sessionPrincipal(deps: Dependencies, req: Request, missingMessage: string): Promise<ManagementPrincipal> {
  const token = readCookie(req.headers.cookie, SESSION_COOKIE);
  if (!token) throw new GatewayError('authentication', missingMessage);
  const session: ConsoleSession | undefined = await findConsoleSession(deps.db, token, deps.clock.now());
  if (!session) throw new GatewayError('authentication', 'console session expired or invalid; log in again');
  if (!SAFE_METHODS.has(req.method) && !csrfTokenMatches(session.csrfToken, headerText(req.headers['x-csrf-token']))) {
    throw new GatewayError('permission', 'missing or invalid CSRF token (x-csrf-token)');
  }
  return { accountId: session.accountId, via: 'session', userId: session.userId, userEmail: session.email };
}

export function createManagementAuth(deps: Dependencies, authenticator: KeyAuthenticator): RequestHandler {
  const caller = createCallerAuthentication(authenticator, deps.config.trustedProxies);
  return async (req, res, next) => {
    const credential = extractCredential(GATEWAY_CREDENTIALS, req.headers, {});
    if (credential !== undefined) {
      // A key's IP rules bind it everywhere, management included (the authenticator enforces them).
      const key = await caller.authenticateSecret(credential, req);
      setPrincipal(res, { accountId: key.accountId, via: 'key', keyId: key.keyId });
    } else {
      setPrincipal(res, await sessionPrincipal(deps, req, 'authentication required: a console session or an API key'));
    }
    next();
  };
}

/** Cookie auth only (the console dial test): an API key is not enough. */
export function createRequireSession(deps: Dependencies): RequestHandler {
  return async (req, res, next) => {
    setPrincipal(res, await sessionPrincipal(deps, req, 'a console session is required (log in to the console)'));
    next();
  };
}
