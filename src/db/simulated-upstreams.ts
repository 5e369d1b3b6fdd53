/**
 * Whether the upstream accounts are the provider simulator (the quick start's bootstrap marks its
 * accounts so): the console says so, since the answers are then simulated, not a model's.
 */
import type { Pool } from 'pg';

/** The `provider` of the accounts the bootstrap points at the simulator. */
export const SIMULATOR_PROVIDER = 'simulator';

export interface UpstreamKinds { active: number; simulated: number }

export async function countSimulatedUpstreams(db: Pool): Promise<UpstreamKinds> {
  const result = await db.query<{ active: string; simulated: string }>(
    `SELECT count(*) AS active, count(*) FILTER (WHERE provider = $1) AS simulated FROM upstream_accounts WHERE status = 'active'`, [SIMULATOR_PROVIDER]);
  return { active: Number(result.rows[0].active), simulated: Number(result.rows[0].simulated) };
}
