/** The `catalog_models` table: read every model, write one, seed the defaults into an empty table. */
import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '../db/transaction';
import { parseCatalogModel } from './catalog-model-schema';
import type { CatalogModel } from './model';

type Queryable = Pick<Pool | PoolClient, 'query'>;

interface Row { definition: unknown; aliases: string[]; retired: boolean }

function toModel(row: Row): CatalogModel {
  return parseCatalogModel({
    ...(row.definition as Record<string, unknown>),
    ...(row.aliases.length > 0 ? { aliases: row.aliases } : {}),
    ...(row.retired ? { retired: true } : {}),
  });
}

export async function loadCatalogModels(db: Queryable): Promise<CatalogModel[]> {
  const { rows } = await db.query<Row>('SELECT definition, aliases, retired FROM catalog_models ORDER BY position');
  return rows.map(toModel);
}

export async function saveCatalogModel(db: Queryable, model: CatalogModel): Promise<void> {
  const { aliases = [], retired = false, ...definition } = model;
  await db.query(
    `INSERT INTO catalog_models (id, family_number, aliases, retired, definition) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO UPDATE SET family_number = EXCLUDED.family_number, aliases = EXCLUDED.aliases,
       retired = EXCLUDED.retired, definition = EXCLUDED.definition, updated_at = now()`,
    [model.id, model.familyNumber, aliases, retired, JSON.stringify(definition)],
  );
}

/** Writes the default catalog when the table is empty (first start); true when it did. Concurrent starters wait on the table lock. */
export async function seedCatalogIfEmpty(db: Pool, defaults: readonly CatalogModel[]): Promise<boolean> {
  const existing = await db.query('SELECT 1 FROM catalog_models LIMIT 1');
  if (existing.rowCount) return false;
  return inTransaction(db, async (client) => {
    await client.query('LOCK TABLE catalog_models IN EXCLUSIVE MODE');
    if ((await client.query('SELECT 1 FROM catalog_models LIMIT 1')).rowCount) return false;
    for (const model of defaults) await saveCatalogModel(client, parseCatalogModel(model));
    return true;
  });
}
