/**
 * The operator role (migration 006): a console session whose user has `role = 'operator'`. Only a
 * session, never an API key: operators act on every account, and keys belong to one. CSRF applies
 * to writes as on every cookie-authenticated route (checked by the session middleware).
 */
import type { RequestHandler } from 'express';
import { createRequireSession, managementPrincipal } from '../auth/management-auth';
import { findConsoleUserRole } from '../db/repositories/console-users';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';

export function createRequireOperator(deps: Dependencies): RequestHandler {
  const requireSession = createRequireSession(deps);
  return async (req, res, next) => {
    // The session middleware either calls back or rejects (no session, bad CSRF token).
    await new Promise<void>((resolve, reject) => {
      Promise.resolve(requireSession(req, res, (error?: unknown) => (error ? reject(error) : resolve()))).catch(reject);
    });
    const { userId } = managementPrincipal(res);
    if (userId === undefined || (await findConsoleUserRole(deps.db, userId)) !== 'operator')
      throw new GatewayError('permission', 'this console user is not an operator');
    next();
  };
}
