/**
 * The operator role (migration 006): a console session whose user has `role = 'operator'`. Only a
 * session, never an API key: operators act on every account, and keys belong to one. CSRF applies
 * to writes as on every cookie-authenticated route (checked by the session middleware).
 */
import type { RequestHandler } from 'express';
import { createRequireSession, managementPrincipal } from '../auth/management-auth';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';

export function createRequireOperator(deps: Dependencies): RequestHandler {
  const requireSession = createRequireSession(deps);
  return (req, res, next) => {
    requireSession(req, res, (error?: unknown) => {
      if (error) return next(error);
      const { userId } = managementPrincipal(res);
      deps.db.query<{ role: string }>('SELECT role FROM console_users WHERE id = $1', [userId])
        .then((result) => {
          if (result.rows[0]?.role !== 'operator') throw new GatewayError('permission', 'this console user is not an operator');
          next();
        })
        .catch(next);
    });
  };
}
