/**
 * The operator's catalog routes under `/api/v1/operator/catalog`: list, add, update, retire, alias.
 * Thin calls into the catalog service (the same one the admin CLI uses), so validation is one set of
 * rules; its refusals answer 400 in the management envelope. Bodies use the service's model shape
 * (camelCase fields, prices in credits: 1 USD = 1,000,000 credits), as `admin model --set` takes it.
 * After a change this process reloads its catalog at once; the others reload on the announcement.
 * Every change is audited (before and after).
 */
import express, { type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { parseBody } from '../auth/parse-body';
import { CatalogValidationError } from '../catalog/catalog-model-schema';
import { createCatalogService } from '../catalog/catalog-service';
import { seedCatalogIfEmpty } from '../catalog/catalog-store';
import type { CatalogModel } from '../catalog/model';
import type { Dependencies } from '../dependencies';
import { GatewayError } from '../errors/gateway-error';
import { createAuditActorOf } from '../auth/audit-actor';
import { recordAudit } from '../audit/record-audit';

const changesSchema = z.record(z.string(), z.unknown());
const retireSchema = z.object({ retired: z.boolean().optional() }).strict();
const aliasSchema = z
  .object({ alias: z.string().trim().min(1, { error: 'must not be empty' }).max(128), remove: z.boolean().optional() })
  .strict();

export function createOperatorCatalogRouter(deps: Dependencies): Router {
  const router = express.Router();
  const service = createCatalogService(deps);
  const describe = (model: CatalogModel) => ({
    ...deps.catalog.toPublic(model),
    aliases: model.aliases ?? [],
    retired: model.retired === true,
    prices: model.prices,
  });

  const actorOf = createAuditActorOf(deps);

  /** Runs one service call, audited; the table is seeded from what this process serves if it was never written. */
  async function change(req: Request, res: Response, action: string, run: () => Promise<CatalogModel>): Promise<Record<string, unknown>> {
    await seedCatalogIfEmpty(deps.db, deps.catalog.models);
    const slugBefore = typeof req.params.id === 'string' ? req.params.id : undefined;
    const before = slugBefore === undefined ? undefined : deps.catalog.find(slugBefore);
    try {
      const model = await run();
      deps.catalog.replace(await service.list());
      await recordAudit(deps.db, actorOf(req, res), {
        accountId: null,
        action,
        targetType: 'model',
        targetId: model.id,
        before: before ? describe(before) : null,
        after: describe(model),
      });
      return describe(model);
    } catch (error) {
      if (error instanceof CatalogValidationError) throw new GatewayError('invalid_request', error.message);
      throw error;
    }
  }
  const slug = (req: Request) => String(req.params.id);

  router.get('/api/v1/operator/catalog', (_req, res) => {
    res.json({ object: 'list', data: deps.catalog.models.map(describe) });
  });
  router.post('/api/v1/operator/catalog', async (req, res) => {
    const input = parseBody(changesSchema, req.body);
    res.status(201).json(await change(req, res, 'catalog.create', () => service.add(input)));
  });
  router.patch('/api/v1/operator/catalog/:id', async (req, res) => {
    const input = parseBody(changesSchema, req.body);
    res.json(await change(req, res, 'catalog.update', () => service.update(slug(req), input)));
  });
  router.post('/api/v1/operator/catalog/:id/retire', async (req, res) => {
    const input = parseBody(retireSchema, req.body ?? {});
    res.json(
      await change(req, res, input.retired === false ? 'catalog.restore' : 'catalog.retire', () =>
        service.retire(slug(req), input.retired ?? true),
      ),
    );
  });
  router.post('/api/v1/operator/catalog/:id/aliases', async (req, res) => {
    const input = parseBody(aliasSchema, req.body);
    res.json(
      await change(req, res, input.remove === true ? 'catalog.alias_remove' : 'catalog.alias_add', () =>
        service.alias(slug(req), input.alias, input.remove === true),
      ),
    );
  });
  return router;
}
