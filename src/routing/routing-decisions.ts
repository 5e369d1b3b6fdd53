/**
 * Stored decision chains (`routing_decisions`): written by the API process for every request whose
 * routing was eventful (fire and forget: a lost record never fails a request), read by the
 * management API for the account that made the request. What is stored and shown names upstream
 * accounts by id and protocol only: never their names, credentials or URLs. One decision per request
 * id: the table is partitioned by day, so the uniqueness is a claim in `routing_decision_ids`.
 */
import type { Pool } from 'pg';
import type { RoutingStep } from './routing-trace';

export type RoutingOutcome = 'served' | 'refused' | 'abandoned';

export interface RoutingDecision {
  requestId: string;
  accountId: number;
  apiKeyId: number | null;
  model: string;
  outcome: RoutingOutcome;
  steps: RoutingStep[];
}

/** A step as an account holder may see it: the operator's name for the upstream account left out. */
function publicStep(step: RoutingStep): Record<string, unknown> {
  const { accountId, name, protocol, ...rest } = step;
  void name;
  const out: Record<string, unknown> = { upstream_account_id: accountId, protocol, outcome: rest.outcome };
  if ('failure' in rest) out.failure = rest.failure;
  if ('reason' in rest) out.reason = rest.reason;
  if ('until' in rest) out.until = rest.until;
  if ('sticky' in rest && rest.sticky) out.sticky = true;
  return out;
}

/** Writes the decision once per request id; a day without its partition yet gets it, and the write is tried again. */
export async function recordRoutingDecision(db: Pool, decision: RoutingDecision): Promise<void> {
  try {
    await insertRoutingDecision(db, decision);
  } catch (error) {
    // 23514: no partition for the row (or a check constraint, which the second write fails again).
    if ((error as { code?: unknown } | null)?.code !== '23514') throw error;
    await db.query("SELECT ensure_time_partitions('routing_decisions', 'day', now() - interval '1 day', now() + interval '1 day')");
    await insertRoutingDecision(db, decision);
  }
}

async function insertRoutingDecision(db: Pool, decision: RoutingDecision): Promise<void> {
  await db.query(
    `WITH claimed AS (
       INSERT INTO routing_decision_ids (request_id, created_at) VALUES ($1, now()) ON CONFLICT DO NOTHING RETURNING request_id
     )
     INSERT INTO routing_decisions (request_id, account_id, api_key_id, model, outcome, steps, created_at)
     SELECT $1, $2, $3, $4, $5, $6, now() FROM claimed`,
    [decision.requestId, decision.accountId, decision.apiKeyId, decision.model, decision.outcome, JSON.stringify(decision.steps.map(publicStep))]);
}

export async function findRoutingDecision(db: Pool, accountId: number, requestId: string): Promise<Record<string, unknown> | undefined> {
  const result = await db.query<{ request_id: string; api_key_id: string | null; model: string; outcome: string; steps: unknown; created_at: Date }>(
    'SELECT request_id, api_key_id, model, outcome, steps, created_at FROM routing_decisions WHERE request_id = $1 AND account_id = $2',
    [requestId, accountId]);
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    object: 'routing_decision', request_id: row.request_id, api_key_id: row.api_key_id === null ? null : Number(row.api_key_id),
    model: row.model, outcome: row.outcome, steps: row.steps, created_at: row.created_at.toISOString(),
  };
}
