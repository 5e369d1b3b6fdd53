/** The model catalog (`catalog_models`): a model's definition as JSON, with its aliases and retirement in their own columns. */
import type { PoolClient } from 'pg';
import type { Queryable } from '../queryable';

export interface CatalogModelRow {
  definition: unknown;
  aliases: string[];
  retired: boolean;
}

/** Every model, in catalog order. */
export async function listCatalogModelRows(db: Queryable): Promise<CatalogModelRow[]> {
  const { rows } = await db.query<CatalogModelRow>('SELECT definition, aliases, retired FROM catalog_models ORDER BY position');
  return rows;
}

/** Inserts the model, or replaces the stored one with the same id. */
export async function upsertCatalogModel(
  db: Queryable,
  model: { id: string; familyNumber: number; aliases: string[]; retired: boolean; definition: unknown },
): Promise<void> {
  await db.query(
    `INSERT INTO catalog_models (id, family_number, aliases, retired, definition) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (id) DO UPDATE SET family_number = EXCLUDED.family_number, aliases = EXCLUDED.aliases,
       retired = EXCLUDED.retired, definition = EXCLUDED.definition, updated_at = now()`,
    [model.id, model.familyNumber, model.aliases, model.retired, JSON.stringify(model.definition)],
  );
}

export async function catalogHasModels(db: Queryable): Promise<boolean> {
  return ((await db.query('SELECT 1 FROM catalog_models LIMIT 1')).rowCount ?? 0) > 0;
}

/**
 * Inside a transaction, until it ends: concurrent writers of the catalog wait. `EXCLUSIVE` (the
 * first start's seeding) or `SHARE ROW EXCLUSIVE` (an operator's change); plain reads go on under both.
 */
export async function lockCatalogModels(client: PoolClient, mode: 'EXCLUSIVE' | 'SHARE ROW EXCLUSIVE'): Promise<void> {
  await client.query(`LOCK TABLE catalog_models IN ${mode} MODE`);
}
