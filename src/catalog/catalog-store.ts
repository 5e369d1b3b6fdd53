/** The stored catalog: read every model, write one, seed the defaults into an empty table. */
import type { Pool } from 'pg';
import type { Queryable } from '../db/queryable';
import {
  catalogHasModels,
  listCatalogModelRows,
  lockCatalogModels,
  upsertCatalogModel,
  type CatalogModelRow,
} from '../db/repositories/catalog';
import { inTransaction } from '../db/transaction';
import { parseCatalogModel } from './catalog-model-schema';
import type { CatalogModel } from './model';

function toModel(row: CatalogModelRow): CatalogModel {
  return parseCatalogModel({
    ...(row.definition as Record<string, unknown>),
    ...(row.aliases.length > 0 ? { aliases: row.aliases } : {}),
    ...(row.retired ? { retired: true } : {}),
  });
}

export async function loadCatalogModels(db: Queryable): Promise<CatalogModel[]> {
  return (await listCatalogModelRows(db)).map(toModel);
}

export async function saveCatalogModel(db: Queryable, model: CatalogModel): Promise<void> {
  const { aliases = [], retired = false, ...definition } = model;
  await upsertCatalogModel(db, { id: model.id, familyNumber: model.familyNumber, aliases, retired, definition });
}

/** Writes the default catalog when the table is empty (first start); true when it did. Concurrent starters wait on the table lock. */
export async function seedCatalogIfEmpty(db: Pool, defaults: readonly CatalogModel[]): Promise<boolean> {
  if (await catalogHasModels(db)) return false;
  return inTransaction(db, async (client) => {
    await lockCatalogModels(client, 'EXCLUSIVE');
    if (await catalogHasModels(client)) return false;
    for (const model of defaults) await saveCatalogModel(client, parseCatalogModel(model));
    return true;
  });
}
