/**
 * Stored decision chains (`routing_decisions`): written by the API process for every request whose
 * routing was eventful (fire and forget: a lost record never fails a request), read by the
 * management API for the account that made the request. What is stored and shown names upstream
 * accounts by id and protocol only: never their names, credentials or URLs. One decision per request
 * id: the table is partitioned by day, so the uniqueness is a claim in `routing_decision_ids`.
 */
import type { Pool } from 'pg';
import { ensureTimePartitions, isMissingPartition } from '../db/partitions';
import { findRoutingDecisionRecord, insertRoutingDecision } from '../db/repositories/routing-decisions';
import type { RoutingStep } from './routing-trace';

const DAY_MS = 86_400_000;

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
  const row = { ...decision, steps: decision.steps.map(publicStep) };
  try {
    await insertRoutingDecision(db, row);
  } catch (error) {
    if (!isMissingPartition(error)) throw error;
    // The database's clock stamps the row; this process's is close enough for a day either side.
    const now = Date.now();
    await ensureTimePartitions(db, 'routing_decisions', 'day', now - DAY_MS, now + DAY_MS);
    await insertRoutingDecision(db, row);
  }
}

export async function findRoutingDecision(db: Pool, accountId: number, requestId: string): Promise<Record<string, unknown> | undefined> {
  const found = await findRoutingDecisionRecord(db, accountId, requestId);
  if (!found) return undefined;
  return {
    object: 'routing_decision',
    request_id: found.requestId,
    api_key_id: found.apiKeyId,
    model: found.model,
    outcome: found.outcome,
    steps: found.steps,
    created_at: found.createdAt.toISOString(),
  };
}
