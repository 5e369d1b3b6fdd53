/**
 * The operator API under `/api/v1/operator` (console operators only): accounts (create, tier,
 * concurrency, top-up and adjustment with a reason: operator-account-routes.ts), routing groups and
 * upstream accounts (add, edit, disable, priority and weight, health shared by every API process, a
 * real test call: operator-upstream-routes.ts), group grants (operator-grants-router.ts) and the
 * catalog (operator-catalog-router.ts). Every change is audited.
 */
import express, { type Router } from 'express';
import type { Dependencies } from '../dependencies';
import type { KeyAuthenticator } from '../auth/key-authenticator';
import { createRequireOperator } from './operator-auth';
import { createOperatorCatalogRouter } from './operator-catalog-router';
import { createOperatorGrantsRouter } from './operator-grants-router';
import { createOperatorAuditRouter } from '../account/audit-router';
import { OperatorAccountRoutes } from './operator-account-routes';
import { OperatorUpstreamRoutes, type OperatorUpstreamServices } from './operator-upstream-routes';

/** The upstream routes' services, and the authenticator through which a grant change drops keys. */
export type OperatorServices = OperatorUpstreamServices & { authenticator: Pick<KeyAuthenticator, 'invalidate'> };

export function createOperatorRouter(deps: Dependencies, services: OperatorServices): Router {
  const accounts = new OperatorAccountRoutes(deps);
  const upstreams = new OperatorUpstreamRoutes(deps, services);
  const router = express.Router();
  router.use('/api/v1/operator', createRequireOperator(deps));

  router.get('/api/v1/operator/me', accounts.me);
  router.get('/api/v1/operator/accounts', accounts.list);
  router.post('/api/v1/operator/accounts', accounts.create);
  router.patch('/api/v1/operator/accounts/:id', accounts.update);
  router.post('/api/v1/operator/accounts/:id/ledger', accounts.addLedgerEntry);

  router.get('/api/v1/operator/groups', upstreams.listGroups);
  router.post('/api/v1/operator/groups', upstreams.createGroup);
  router.get('/api/v1/operator/upstreams', upstreams.listUpstreams);
  router.get('/api/v1/operator/upstream-health', upstreams.upstreamHealth);
  router.get('/api/v1/operator/providers', upstreams.listProviders);
  router.post('/api/v1/operator/upstreams', upstreams.addUpstream);
  router.patch('/api/v1/operator/upstreams/:id', upstreams.updateUpstream);
  router.post('/api/v1/operator/upstreams/:id/test', upstreams.testUpstream);

  router.use(createOperatorGrantsRouter(deps, services.authenticator));
  router.use(createOperatorAuditRouter(deps));
  router.use(createOperatorCatalogRouter(deps));
  return router;
}
