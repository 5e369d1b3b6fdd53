/** The partial update by id that the account and upstream account repositories share. */
import type { Queryable } from '../queryable';

/**
 * Sets only the given columns of row `id` of `table` (undefined: unchanged; null is a value). With
 * nothing to set it still tells whether the row exists. True when the row exists.
 */
export async function updateColumns(
  db: Queryable,
  table: 'accounts' | 'upstream_accounts',
  id: number,
  changes: Record<string, unknown>,
): Promise<boolean> {
  const entries = Object.entries(changes).filter(([, value]) => value !== undefined);
  const sets = entries.map(([column], i) => `${column} = $${i + 2}`).join(', ');
  const result = sets
    ? await db.query(`UPDATE ${table} SET ${sets} WHERE id = $1`, [id, ...entries.map(([, value]) => value)])
    : await db.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id]);
  return (result.rowCount ?? 0) > 0;
}
