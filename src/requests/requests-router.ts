/**
 * The request log's API (issue 22): `GET /api/v1/me/requests` (newest first, filters, cursor
 * paging), `GET /api/v1/me/requests/stats` (figures per model or upstream account over a window) and
 * `GET /api/v1/me/requests/{request_id}` (the record with its routing, usage, ledger and bodies) for
 * the caller's account; the same across accounts under `/api/v1/operator/requests` (operators only).
 */
import express, { type RequestHandler, type Router } from 'express';
import { parseQuery } from '../account/account-query-schemas';
import { managementPrincipal } from '../auth/management-auth';
import { readPool, type Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { createRequireOperator } from '../operator/operator-auth';
import { encodeRequestCursor, listRequestRecords } from './list-request-records';
import { presentRequestRecord } from './present-request-record';
import { readRequestDetail } from './read-request-detail';
import { createRequestBodiesRouter } from './request-bodies-router';
import { operatorRequestsQuerySchema, requestsQuerySchema, statsQuerySchema } from './request-query-schemas';
import { requestStats } from './request-stats';

const REQUEST_ID = /^[A-Za-z0-9_-]{1,200}$/;

export function createRequestsRouter(deps: Dependencies, options: { managementAuth: RequestHandler }): Router {
  const router = express.Router();
  const requireOperator = createRequireOperator(deps);

  /** accountId undefined: every account (operators). */
  const list =
    (
      accountId: (res: express.Response) => number | undefined,
      schema: typeof requestsQuerySchema | typeof operatorRequestsQuerySchema,
    ): RequestHandler =>
    async (req, res) => {
      const query = parseQuery(schema, req.query);
      const rows = await listRequestRecords(readPool(deps), accountId(res), query);
      const shown = rows.slice(0, query.limit);
      const last = shown[shown.length - 1];
      res.json({
        object: 'list',
        data: shown.map(presentRequestRecord),
        has_more: rows.length > query.limit,
        next_cursor: rows.length > query.limit && last ? encodeRequestCursor(last) : null,
      });
    };

  const stats =
    (accountId: (res: express.Response) => number | undefined): RequestHandler =>
    async (req, res) => {
      const query = parseQuery(statsQuerySchema, req.query);
      res.json(await requestStats(readPool(deps), accountId(res), query, deps.clock.now()));
    };

  const detail =
    (accountId: (res: express.Response) => number | undefined): RequestHandler =>
    async (req, res) => {
      const requestId = String(req.params.requestId);
      const found = REQUEST_ID.test(requestId) ? await readRequestDetail(deps.db, requestId, accountId(res)) : undefined;
      if (!found) throw new GatewayError('not_found', `no request ${requestId.slice(0, 200)} in the request log`, { param: 'request_id' });
      res.json(found);
    };

  const own = (res: express.Response) => managementPrincipal(res).accountId;
  const anyAccount = () => undefined;
  router.get('/api/v1/me/requests', options.managementAuth, list(own, requestsQuerySchema));
  router.get('/api/v1/me/requests/stats', options.managementAuth, stats(own));
  router.get('/api/v1/me/requests/:requestId', options.managementAuth, detail(own));
  router.get('/api/v1/operator/requests', requireOperator, list(anyAccount, operatorRequestsQuerySchema));
  router.get('/api/v1/operator/requests/stats', requireOperator, stats(anyAccount));
  router.get('/api/v1/operator/requests/:requestId', requireOperator, detail(anyAccount));
  router.use(createRequestBodiesRouter(deps, { managementAuth: options.managementAuth, requireOperator }));
  return router;
}
