/**
 * The account surface (interface 4.9): account context and balance, usage rows, billing
 * transactions, and the models the account can route now. Behind the management auth (cookie or
 * key); free and not throttled: no admission, no lease.
 */
import express, { type RequestHandler, type Router } from 'express';
import { managementPrincipal } from '../auth/management-auth';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { parseQuery, transactionsQuerySchema, usageQuerySchema } from './account-query-schemas';
import { listLedgerEntries } from './list-ledger-entries';
import { listUsageRows } from './list-usage-rows';
import { decodeCursor, encodeCursor } from './page-cursor';
import { presentAccount } from './present-account';
import { presentLedgerEntry } from './present-ledger-entry';
import { presentUsageRow } from './present-usage-row';
import { readAccount } from './read-account';
import { readRoutingGroups } from './read-routing-groups';
import { routableModels } from './routable-models';

type AccountDependencies = Pick<Dependencies, 'db' | 'catalog' | 'clock'>;

const USAGE_CURSOR = 'usage';
const LEDGER_CURSOR = 'ledger';

/** `{object: list, data, has_more, next_cursor}` from `limit + 1` fetched rows. */
function page<T extends { id: number }>(rows: T[], limit: number, cursorKind: string, present: (row: T) => Record<string, unknown>) {
  const hasMore = rows.length > limit;
  const shown = rows.slice(0, limit);
  const last = shown[shown.length - 1];
  return {
    object: 'list',
    data: shown.map(present),
    has_more: hasMore,
    next_cursor: hasMore && last ? encodeCursor(cursorKind, last.id) : null,
  };
}

export function createAccountRouter(deps: AccountDependencies, options: { managementAuth: RequestHandler }): Router {
  const router = express.Router();
  const { managementAuth } = options;

  router.get('/api/v1/me/account', managementAuth, async (_req, res) => {
    const principal = managementPrincipal(res);
    const account = await readAccount(deps.db, principal);
    if (!account) throw new GatewayError('not_found', 'account not found');
    res.json(presentAccount(account, principal));
  });

  const usage: RequestHandler = async (req, res) => {
    const principal = managementPrincipal(res);
    const query = parseQuery(usageQuerySchema, req.query);
    const rows = await listUsageRows(deps.db, {
      accountId: principal.accountId,
      limit: query.limit,
      beforeId: query.cursor === undefined ? undefined : decodeCursor(USAGE_CURSOR, query.cursor),
      apiKeyId: query.api_key_id,
      model: query.model,
      from: query.from,
      to: query.to,
    });
    res.json(page(rows, query.limit, USAGE_CURSOR, presentUsageRow));
  };
  router.get('/api/v1/me/usage', managementAuth, usage);
  router.get('/api/v1/usage', managementAuth, usage);

  router.get('/api/v1/me/billing/transactions', managementAuth, async (req, res) => {
    const principal = managementPrincipal(res);
    const query = parseQuery(transactionsQuerySchema, req.query);
    const entries = await listLedgerEntries(deps.db, {
      accountId: principal.accountId,
      limit: query.limit,
      beforeId: query.cursor === undefined ? undefined : decodeCursor(LEDGER_CURSOR, query.cursor),
      kinds: query.kind,
      from: query.from,
      to: query.to,
    });
    res.json(page(entries, query.limit, LEDGER_CURSOR, presentLedgerEntry));
  });

  router.get('/api/v1/me/available-models', managementAuth, async (_req, res) => {
    const principal = managementPrincipal(res);
    const groups = await readRoutingGroups(deps.db, principal.accountId, new Date(deps.clock.now()));
    const models = routableModels(deps.catalog, groups);
    res.json({
      object: 'list',
      data: models.map(({ model, groups: names }) => ({ ...deps.catalog.toPublic(model), groups: names })),
    });
  });

  return router;
}
