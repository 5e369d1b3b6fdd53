/**
 * `GET /api/v1/me/usage/{request_id}/routing`: how a request of the caller's account was routed
 * (the console's usage detail). Only eventful requests have a record (a failover, a skipped
 * account, a refusal); a request its first account served has none: 404, as has another
 * account's request.
 */
import express, { type RequestHandler, type Router } from 'express';
import { managementPrincipal } from '../auth/management-auth';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { findRoutingDecision } from './routing-decisions';

export function createRoutingDecisionsRouter(deps: Pick<Dependencies, 'db'>, options: { managementAuth: RequestHandler }): Router {
  const router = express.Router();
  router.get('/api/v1/me/usage/:requestId/routing', options.managementAuth, async (req, res) => {
    const requestId = String(req.params.requestId);
    const decision = await findRoutingDecision(deps.db, managementPrincipal(res).accountId, requestId);
    if (!decision) {
      throw new GatewayError(
        'not_found',
        `no routing record for request ${requestId}: it ran on its first account, or it is not one of this account's requests`,
        { param: 'request_id' },
      );
    }
    res.json(decision);
  });
  return router;
}
