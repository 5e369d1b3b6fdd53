import type { Pool } from 'pg';

/** A routing group by id (digits) or name. */
export async function findGroupId(db: Pool, idOrName: string | number): Promise<number | undefined> {
  const asNumber = typeof idOrName === 'number' ? idOrName : /^\d+$/.test(idOrName) ? Number(idOrName) : undefined;
  const result = asNumber !== undefined
    ? await db.query<{ id: number }>('SELECT id FROM routing_groups WHERE id = $1', [asNumber])
    : await db.query<{ id: number }>('SELECT id FROM routing_groups WHERE name = $1', [idOrName]);
  return result.rows[0]?.id;
}
