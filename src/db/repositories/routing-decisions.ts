/**
 * Stored routing decision chains (`routing_decisions`, partitioned by day). One decision per request
 * id: the uniqueness is a claim in `routing_decision_ids`, since a partitioned table's unique keys
 * must include the partition key.
 */
import type { Queryable } from '../queryable';

export interface NewRoutingDecision {
  requestId: string;
  accountId: number;
  apiKeyId: number | null;
  model: string;
  outcome: string;
  steps: unknown;
}

/** Writes the decision unless one was written for the request id already; fails (23514) when the day has no partition yet. */
export async function insertRoutingDecision(db: Queryable, decision: NewRoutingDecision): Promise<void> {
  await db.query(
    `WITH claimed AS (
       INSERT INTO routing_decision_ids (request_id, created_at) VALUES ($1, now()) ON CONFLICT DO NOTHING RETURNING request_id
     )
     INSERT INTO routing_decisions (request_id, account_id, api_key_id, model, outcome, steps, created_at)
     SELECT $1, $2, $3, $4, $5, $6, now() FROM claimed`,
    [decision.requestId, decision.accountId, decision.apiKeyId, decision.model, decision.outcome, JSON.stringify(decision.steps)],
  );
}

export interface RoutingDecisionRecord {
  requestId: string;
  apiKeyId: number | null;
  model: string;
  outcome: string;
  steps: unknown;
  createdAt: Date;
}

/** The account's decision for the request, if any (another account's is not found). */
export async function findRoutingDecisionRecord(
  db: Queryable,
  accountId: number,
  requestId: string,
): Promise<RoutingDecisionRecord | undefined> {
  const result = await db.query<{
    request_id: string;
    api_key_id: string | null;
    model: string;
    outcome: string;
    steps: unknown;
    created_at: Date;
  }>('SELECT request_id, api_key_id, model, outcome, steps, created_at FROM routing_decisions WHERE request_id = $1 AND account_id = $2', [
    requestId,
    accountId,
  ]);
  const row = result.rows[0];
  if (!row) return undefined;
  return {
    requestId: row.request_id,
    apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id),
    model: row.model,
    outcome: row.outcome,
    steps: row.steps,
    createdAt: row.created_at,
  };
}
