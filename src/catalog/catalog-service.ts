/**
 * Catalog changes by operators (admin CLI, console operator pages): validate, write to PostgreSQL,
 * announce on `catalogChangedChannel` so every API process reloads within moments (catalog-sync.ts).
 * Refused changes throw CatalogValidationError with a message meant for the operator.
 */
import type Redis from 'ioredis';
import type { Pool } from 'pg';
import type { RedisKeys } from '../redis/keys';
import { lockCatalogModels } from '../db/repositories/catalog';
import { inTransaction } from '../db/transaction';
import { CatalogValidationError, checkUniqueNames, parseCatalogModel } from './catalog-model-schema';
import { loadCatalogModels, saveCatalogModel } from './catalog-store';
import type { CatalogModel } from './model';

export interface CatalogService {
  list(): Promise<CatalogModel[]>;
  add(input: unknown): Promise<CatalogModel>;
  /** Merges `changes` into the model (`prices` merged field by field); the slug cannot change. */
  update(id: string, changes: Record<string, unknown>): Promise<CatalogModel>;
  retire(id: string, retired?: boolean): Promise<CatalogModel>;
  alias(id: string, alias: string, remove?: boolean): Promise<CatalogModel>;
}

export function createCatalogService(deps: { db: Pool; redis: Redis; redisKeys: RedisKeys }): CatalogService {
  /** One change: read all, apply, check the whole catalog still holds together, write one row, announce. */
  const change = async (id: string | undefined, apply: (current: CatalogModel | undefined) => unknown): Promise<CatalogModel> => {
    const saved = await inTransaction(deps.db, async (client) => {
      await lockCatalogModels(client, 'SHARE ROW EXCLUSIVE');
      const models = await loadCatalogModels(client);
      const current = id === undefined ? undefined : models.find((m) => m.id === id);
      if (id !== undefined && !current) throw new CatalogValidationError(`no model ${id}`);
      const next = parseCatalogModel(apply(current));
      if (id === undefined && models.some((m) => m.id === next.id)) throw new CatalogValidationError(`model ${next.id} exists; use update`);
      checkUniqueNames([...models.filter((m) => m.id !== next.id), next]);
      await saveCatalogModel(client, next);
      return next;
    });
    await deps.redis.publish(deps.redisKeys.catalogChangedChannel(), saved.id);
    return saved;
  };

  return {
    list: () => loadCatalogModels(deps.db),
    add: (input) => change(undefined, () => input),
    update: (id, changes) =>
      change(id, (current) => {
        if ('id' in changes && changes.id !== id)
          throw new CatalogValidationError('the slug of a model cannot change; add a new model and retire this one');
        const prices =
          typeof changes.prices === 'object' && changes.prices !== null ? { ...current!.prices, ...changes.prices } : current!.prices;
        return { ...current, ...changes, prices };
      }),
    retire: (id, retired = true) => change(id, (current) => ({ ...current, retired })),
    alias: (id, alias, remove = false) =>
      change(id, (current) => {
        const aliases = (current!.aliases ?? []).filter((a) => a !== alias);
        if (!remove) aliases.push(alias);
        return { ...current, aliases };
      }),
  };
}
