/**
 * The two statements where a task moves money, each written as ONE statement so the account row
 * (updated by every hold, release and charge of the account, from every API process and worker) is
 * locked only while PostgreSQL executes it, never across a client round trip. Measured: with
 * `applyLedgerEntry` and `writeUsageEvents` (three to five round trips each while the row is locked)
 * the account row serialized submits and settlements to a few dozen per second on one account.
 *
 * They write exactly the rows those functions write (docs/tasks.md): the wallet change and a ledger
 * entry with its balance after, in the same statement, so the wallet still equals the sum of its
 * entries; `(kind, reference)` stays unique (its claim in `ledger_references`: a duplicate fails the
 * statement and its transaction); the usage row (request id = task id, claimed in
 * `usage_request_ids` the same way) and the key's lifetime spend like a settled usage event.
 */
import type { UsageEvent } from '../billing/usage-event';
import type { TaskEvent } from './task-event';
import type { TaskRow } from './task-record';
import { storableJson } from '../http/storable-text';

/**
 * $1 id, $2 account, $3 key, $4 kind, $5 model, $6 request (json), $7 estimate, $8 deadline,
 * $9 now, $10 first event payload (json), $11 ledger description.
 */
export const INSERT_TASK_WITH_HOLD = `
WITH task AS (
  INSERT INTO tasks (id, account_id, api_key_id, kind, model, status, progress, request, estimated_credits, event_seq, deadline_at, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, 'queued', 0, $6, $7, 1, $8, $9, $9)
  RETURNING id
), event AS (
  INSERT INTO task_events (task_id, seq, status, payload, created_at)
  SELECT id, 1, 'queued', $10::jsonb, $9 FROM task
), wallet AS (
  UPDATE accounts SET balance_credits = balance_credits - $7::bigint, held_credits = held_credits + $7::bigint
   WHERE id = $2 AND $7::bigint > 0 AND EXISTS (SELECT 1 FROM task)
  RETURNING balance_credits
), claim AS (
  INSERT INTO ledger_references (kind, reference) SELECT 'hold', $1 FROM wallet
)
INSERT INTO ledger_entries (account_id, kind, amount_credits, balance_after, reference, api_key_id, description)
SELECT $2, 'hold', -$7::bigint, balance_credits, $1, $3, $11 FROM wallet`;

/**
 * $1 task id, $2 event seq, $3 status, $4 event payload (json or null), $5 account, $6 hold released,
 * $7 charge, $8 key, $9 and $10 ledger descriptions, $11 model, $12 protocol, $13 upstream account,
 * $14 images, $15 video seconds, $16 started (unix ms), $17 whether a usage row is written.
 * `balance_after` of the release is the balance before the charge: the new balance minus what the
 * later entries moved.
 */
export const SETTLE_TASK = `
WITH event AS (
  INSERT INTO task_events (task_id, seq, status, payload)
  SELECT $1, $2, $3, $4::jsonb WHERE $4::jsonb IS NOT NULL
), wallet AS (
  UPDATE accounts SET balance_credits = balance_credits + $6::bigint - $7::bigint, held_credits = held_credits - $6::bigint
   WHERE id = $5 AND ($6::bigint > 0 OR $7::bigint > 0)
  RETURNING balance_credits
), planned AS (
  SELECT e.* FROM wallet CROSS JOIN (VALUES
      (1, 'hold_release', $6::bigint, -$7::bigint, $9::text),
      (2, 'charge', -$7::bigint, 0::bigint, $10::text)) AS e(ord, kind, amount, later, description)
   WHERE e.amount <> 0
), entry_claims AS (
  INSERT INTO ledger_references (kind, reference) SELECT kind, $1 FROM planned ORDER BY ord
), entries AS (
  INSERT INTO ledger_entries (account_id, kind, amount_credits, balance_after, reference, api_key_id, description)
  SELECT $5, e.kind, e.amount, wallet.balance_credits - e.later, $1, $8, e.description
    FROM wallet CROSS JOIN planned e
   ORDER BY e.ord
  RETURNING id
), usage_claim AS (
  INSERT INTO usage_request_ids (request_id) SELECT $1 WHERE $17::boolean
), usage AS (
  INSERT INTO usage_rows (request_id, account_id, api_key_id, model, protocol, upstream_account_id, images, video_seconds, credits, stream, status, started_at)
  SELECT $1, $5, $8, $11, $12, $13, $14, $15, $7::bigint, false, 'ok', to_timestamp($16::float8 / 1000.0) WHERE $17::boolean
  RETURNING id
)
UPDATE api_keys SET spent_credits = spent_credits + $7::bigint,
       last_used_at = GREATEST(COALESCE(last_used_at, to_timestamp(0)), to_timestamp($16::float8 / 1000.0))
 WHERE id = $8 AND $17::boolean`;

export function settleTaskValues(row: TaskRow, event: TaskEvent | undefined, releasedCredits: number, charge: UsageEvent | undefined): unknown[] {
  return [
    row.id, row.event_seq, row.status, event ? storableJson(event.task) : null, row.account_id, releasedCredits, charge?.credits ?? 0,
    row.api_key_id, `hold released: task ${row.status}`, `${row.model} (${charge?.protocol ?? 'tasks'})`,
    charge?.model ?? row.model, charge?.protocol ?? 'tasks', charge?.upstreamAccountId ?? null, charge?.images ?? 0,
    charge?.videoSeconds ?? 0, charge?.startedAt ?? 0, charge !== undefined,
  ];
}
