/**
 * The account surface (interface 4.9): account context and balance, usage rows, billing
 * transactions, and the models the account can route now. Behind the management auth (cookie or
 * key); free and not throttled: no admission, no lease.
 */
import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { managementPrincipal } from '../auth/management-auth';
import { readPool, type Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import {
  DEFAULT_TRANSACTION_KINDS,
  parseQuery,
  seriesQuerySchema,
  transactionsQuerySchema,
  usageQuerySchema,
  type UsageQuery,
} from './account-query-schemas';
import { keyWindows } from './key-windows';
import { writeUsageCsv } from './usage-csv';
import { usageSeries } from './usage-series';
import { listLedgerEntries } from '../db/repositories/ledger';
import { listUsageRows, type UsageFilters } from './list-usage-rows';
import { decodeCursor, page } from './page-cursor';
import { presentAccount } from './present-account';
import { presentPrices } from './present-prices';
import { presentLedgerEntry } from './present-ledger-entry';
import { presentUsageRow } from './present-usage-row';
import { readAccount } from './read-account';
import { readRoutingGroups } from './read-routing-groups';
import { listUsableGroups } from '../db/repositories/groups';
import { createAccountAuditRouter } from './audit-router';
import { routableModels } from './routable-models';

type AccountDependencies = Pick<Dependencies, 'db' | 'readDb' | 'catalog' | 'clock'>;

/** Writes a chunk, waiting while the client's buffer is full; rejects when the client went away. */
function writeToClient(res: Response, chunk: string): Promise<void> {
  if (res.destroyed) return Promise.reject(new Error('the client went away'));
  if (res.write(chunk)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const drained = () => {
      res.off('close', closed);
      resolve();
    };
    const closed = () => {
      res.off('drain', drained);
      reject(new Error('the client went away'));
    };
    res.once('drain', drained);
    res.once('close', closed);
  });
}

const USAGE_CURSOR = 'usage';
const LEDGER_CURSOR = 'ledger';

function usageFilters(accountId: number, query: UsageQuery, limit: number): UsageFilters {
  return {
    accountId,
    limit,
    beforeId: query.cursor === undefined ? undefined : decodeCursor(USAGE_CURSOR, query.cursor),
    apiKeyId: query.api_key_id,
    model: query.model,
    protocol: query.protocol,
    status: query.status,
    from: query.from,
    to: query.to,
  };
}

/** The account routes of one router: they share only their dependencies. */
class AccountRoutes {
  constructor(private readonly deps: AccountDependencies) {}

  readonly account = async (_req: Request, res: Response): Promise<void> => {
    const principal = managementPrincipal(res);
    const account = await readAccount(this.deps.db, principal);
    if (!account) throw new GatewayError('not_found', 'account not found');
    res.json(presentAccount(account, principal));
  };

  readonly usage = async (req: Request, res: Response): Promise<void> => {
    const principal = managementPrincipal(res);
    const query = parseQuery(usageQuerySchema, req.query);
    const rows = await listUsageRows(readPool(this.deps), usageFilters(principal.accountId, query, query.limit));
    res.json(page(rows, query.limit, USAGE_CURSOR, presentUsageRow));
  };

  /** The usage rows matching the listing's filters as CSV, newest first, all of them, streamed. */
  readonly usageExport = async (req: Request, res: Response): Promise<void> => {
    const principal = managementPrincipal(res);
    const query = parseQuery(usageQuerySchema, req.query);
    res.setHeader('content-type', 'text/csv; charset=utf-8');
    res.setHeader('content-disposition', 'attachment; filename="usage.csv"');
    // The page size is writeUsageCsv's own: the listing's `limit` does not apply to an export.
    await writeUsageCsv(readPool(this.deps), usageFilters(principal.accountId, query, 0), (chunk) => writeToClient(res, chunk));
    res.end();
  };

  readonly usageDaily = async (req: Request, res: Response): Promise<void> => {
    const principal = managementPrincipal(res);
    const query = parseQuery(seriesQuerySchema, req.query);
    res.json(await usageSeries(readPool(this.deps), principal.accountId, this.deps.clock.now(), query.days));
  };

  /** The groups a key can be created in (the key form's choices): public ones and those granted to the account. */
  readonly routingGroups = async (_req: Request, res: Response): Promise<void> => {
    const groups = await listUsableGroups(this.deps.db, managementPrincipal(res).accountId);
    res.json({
      object: 'list',
      data: groups.map((group) => ({
        object: 'routing_group',
        id: group.id,
        name: group.name,
        family: group.family,
        visibility: group.visibility,
      })),
    });
  };

  readonly listKeyWindows = async (_req: Request, res: Response): Promise<void> => {
    const principal = managementPrincipal(res);
    res.json({ object: 'list', data: await keyWindows(readPool(this.deps), principal.accountId, this.deps.clock.now()) });
  };

  readonly transactions = async (req: Request, res: Response): Promise<void> => {
    const principal = managementPrincipal(res);
    const query = parseQuery(transactionsQuerySchema, req.query);
    const entries = await listLedgerEntries(this.deps.db, {
      accountId: principal.accountId,
      limit: query.limit,
      beforeId: query.cursor === undefined ? undefined : decodeCursor(LEDGER_CURSOR, query.cursor),
      kinds: query.kind ?? [...DEFAULT_TRANSACTION_KINDS],
      from: query.from,
      to: query.to,
    });
    res.json(page(entries, query.limit, LEDGER_CURSOR, presentLedgerEntry));
  };

  readonly availableModels = async (_req: Request, res: Response): Promise<void> => {
    const { catalog } = this.deps;
    const principal = managementPrincipal(res);
    const groups = await readRoutingGroups(this.deps.db, principal.accountId, new Date(this.deps.clock.now()), principal.keyId);
    const models = routableModels(catalog, groups);
    res.json({
      object: 'list',
      data: models.map(({ model, groups: names }) => ({
        ...catalog.toPublic(model),
        kind: model.kind,
        pricing: presentPrices(model.prices),
        groups: names,
      })),
    });
  };
}

export function createAccountRouter(deps: AccountDependencies, options: { managementAuth: RequestHandler }): Router {
  const routes = new AccountRoutes(deps);
  const router = express.Router();
  const { managementAuth } = options;
  router.get('/api/v1/me/account', managementAuth, routes.account);
  router.get('/api/v1/me/usage/export', managementAuth, routes.usageExport);
  router.get('/api/v1/me/usage/daily', managementAuth, routes.usageDaily);
  router.get('/api/v1/me/routing-groups', managementAuth, routes.routingGroups);
  router.get('/api/v1/me/key-windows', managementAuth, routes.listKeyWindows);
  router.get('/api/v1/me/usage', managementAuth, routes.usage);
  router.get('/api/v1/usage', managementAuth, routes.usage);
  router.get('/api/v1/me/billing/transactions', managementAuth, routes.transactions);
  router.get('/api/v1/me/available-models', managementAuth, routes.availableModels);
  // The account's own audit events (issue 21).
  router.use(createAccountAuditRouter(deps, { managementAuth }));
  return router;
}
