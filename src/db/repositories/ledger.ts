/**
 * The ledger: the one module through which money moves. Every statement that changes an account's
 * `balance_credits` or `held_credits`, or writes `ledger_entries`, is here, and so are the reads of
 * the ledger (docs/billing.md).
 *
 * Money movements:
 * - `applyLedgerEntry`: one entry of any kind in the caller's transaction (top-ups, refunds,
 *   adjustments, an operator's entries).
 * - `writeUsageEvents`: the usage settlement of a batch (billing workers): the usage rows, a `charge`
 *   entry per new row that costs something, and each key's lifetime spend, in the caller's transaction.
 * - `insertTaskWithHold`: a task submitted, its estimate held (`hold`), in ONE statement.
 * - `settleTask`: a task finished: its event, the hold released (`hold_release`) and on success the
 *   `charge` with its usage row and the key's lifetime spend, in ONE statement (docs/tasks.md).
 * Reads: `listLedgerEntries` (an account's transactions), `writtenRequestIds` (which usage events are
 * settled) and the figures the billing reconciler compares with Redis.
 *
 * Invariants every movement keeps:
 * - The wallet is the sum of its entries: `balance_credits` changes only in the statement (or the
 *   transaction) that writes the entries of the change, each with `balance_after`, the balance once it
 *   and the entries before it applied. The usage settlement and the task statements write no entry
 *   for zero credits (a free request, a task without estimate): such a change moves no money.
 * - Held credits: a hold moves its credits from `balance_credits` to `held_credits` (a negative entry),
 *   its release moves them back (a positive one), a charge moves the balance only; so `held_credits`
 *   is the sum of the holds not yet released.
 * - Idempotency by (kind, reference): `ledger_entries` is partitioned by time, so that uniqueness is a
 *   claim in `ledger_references`, inserted in the same statement as the entry (a usage row's request
 *   id is claimed in `usage_request_ids` the same way). `applyLedgerEntry` and the usage settlement
 *   write nothing for a reference already claimed; the task statements fail on one, and their
 *   transaction with them. An entry without a reference is never deduplicated.
 * - Amounts are integer credits (`bigint`); charges and holds are negative.
 * - The movements of several statements take a `PoolClient` inside the caller's transaction (never
 *   the pool: each statement would commit on its own).
 * - Account rows are locked in a fixed order (a usage batch: request ids, then accounts, then keys,
 *   each ascending), and a task statement locks its account only while PostgreSQL runs it.
 */
import type { Pool, PoolClient } from 'pg';
import type { Queryable } from '../queryable';
import { sqlConditions } from '../sql-conditions';
import { inTransaction } from '../transaction';

// ---------------------------------------------------------------------------------------------
// The fragments every shape (one entry, a usage batch, a task statement) spells the same way.

/** The wallet change: the balance moved by `balance`, the held credits by `held` (signed SQL terms). */
function updateWallet(change: { balance: string; held?: string; from?: string; where: string; returning: string }): string {
  const held = change.held === undefined ? '' : `, held_credits = held_credits ${change.held}`;
  const from = change.from === undefined ? '' : ` FROM ${change.from}`;
  return `UPDATE accounts SET balance_credits = balance_credits ${change.balance}${held}${from}
   WHERE ${change.where} RETURNING ${change.returning}`;
}

const INSERT_ENTRIES = 'INSERT INTO ledger_entries (account_id, kind, amount_credits, balance_after, reference, api_key_id, description)';

/**
 * The claims of the selected (kind, reference) pairs. `skip`: a pair already claimed claims nothing
 * (RETURNING tells which were claimed); `fail`: it fails the statement.
 */
function claimReferences(select: string, duplicate: 'skip' | 'fail'): string {
  return `INSERT INTO ledger_references (kind, reference) ${select}${duplicate === 'skip' ? ' ON CONFLICT DO NOTHING RETURNING reference' : ''}`;
}

/** The claims of the selected usage request ids, like `claimReferences`. */
function claimRequestIds(select: string, duplicate: 'skip' | 'fail'): string {
  return `INSERT INTO usage_request_ids (request_id) ${select}${duplicate === 'skip' ? ' ON CONFLICT DO NOTHING RETURNING request_id' : ''}`;
}

/** A key's lifetime spend and last use (unix ms); a deleted key matches no row. */
function addKeySpend(credits: string, usedAtMs: string, where: string): string {
  return `UPDATE api_keys SET spent_credits = spent_credits + ${credits},
       last_used_at = GREATEST(COALESCE(last_used_at, to_timestamp(0)), to_timestamp(${usedAtMs} / 1000.0))
   WHERE ${where}`;
}

// ---------------------------------------------------------------------------------------------
// One entry.

export type LedgerKind = 'topup' | 'refund' | 'adjustment' | 'charge' | 'hold' | 'hold_release';

export interface LedgerEntryInput {
  accountId: number;
  kind: LedgerKind;
  /** Signed credits: charges and holds negative, top-ups, refunds and hold releases positive. */
  amountCredits: number;
  /** Idempotency reference (request id of a charge, task id of a hold). Null: never deduplicated. */
  reference: string | null;
  apiKeyId?: number | null;
  description?: string | null;
}

export interface LedgerEntryResult {
  /** False when an entry with the same (kind, reference) already existed: nothing was written. */
  applied: boolean;
  balanceAfter: number;
  entryId: number | null;
}

const FIND_ENTRY = 'SELECT id, balance_after FROM ledger_entries WHERE kind = $1 AND reference = $2';

/** $1 account, $2 balance delta, $3 held delta. */
const MOVE_WALLET = updateWallet({ balance: '+ $2', held: '+ $3', where: 'id = $1', returning: 'balance_credits' });

/** $1 account, $2 kind, $3 amount, $4 balance after, $5 reference, $6 key, $7 description. */
const INSERT_ENTRY = `
WITH claimed AS (
  ${claimReferences('SELECT $2, $5 WHERE $5::text IS NOT NULL', 'skip')}
)
${INSERT_ENTRIES}
SELECT $1, $2, $3, $4, $5, $6, $7 WHERE $5::text IS NULL OR EXISTS (SELECT 1 FROM claimed)
RETURNING id`;

/**
 * Applies one entry inside the caller's transaction (`client` must be in BEGIN … COMMIT).
 * Locks the account row, so concurrent entries serialize per account.
 */
export async function applyLedgerEntry(client: PoolClient, entry: LedgerEntryInput): Promise<LedgerEntryResult> {
  if (!Number.isSafeInteger(entry.amountCredits)) throw new Error('ledger amounts are integer credits');
  if (entry.reference !== null) {
    const existing = await client.query<{ id: number; balance_after: number }>(FIND_ENTRY, [entry.kind, entry.reference]);
    if (existing.rows[0]) return { applied: false, balanceAfter: existing.rows[0].balance_after, entryId: existing.rows[0].id };
  }
  const heldDelta = entry.kind === 'hold' ? -entry.amountCredits : entry.kind === 'hold_release' ? -entry.amountCredits : 0;
  const updated = await client.query<{ balance_credits: number }>(MOVE_WALLET, [entry.accountId, entry.amountCredits, heldDelta]);
  const balanceAfter = updated.rows[0]?.balance_credits;
  if (balanceAfter === undefined) throw new Error(`account ${entry.accountId} not found`);
  const inserted = await client.query<{ id: number }>(INSERT_ENTRY, [
    entry.accountId,
    entry.kind,
    entry.amountCredits,
    balanceAfter,
    entry.reference,
    entry.apiKeyId ?? null,
    entry.description ?? null,
  ]);
  if (!inserted.rows[0]) {
    // A concurrent writer won the unique race after our check: undo our wallet change.
    throw new Error('ledger entry raced with a duplicate; retry the transaction');
  }
  return { applied: true, balanceAfter, entryId: inserted.rows[0].id };
}

// ---------------------------------------------------------------------------------------------
// The usage settlement of a batch.

/** A billed request as the billing workers settle it (billing/usage-event.ts). */
export interface SettledUsage {
  /** Idempotency key: the request id. */
  requestId: string;
  accountId: number;
  apiKeyId: number | null;
  model: string;
  protocol: string;
  upstreamAccountId: number | null;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  images: number;
  videoSeconds: number;
  credits: number;
  stream: boolean;
  status: string;
  /** Unix ms. */
  startedAt: number;
}

export interface SettlementOutcome {
  requestId: string;
  /** False: a row for this request id already existed, nothing was written. */
  written: boolean;
}

const INSERT_USAGE_ROWS = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::int[],
    $8::int[], $9::int[], $10::int[], $11::int[], $12::int[], $13::int[], $14::bigint[], $15::bool[],
    $16::text[], $17::float8[])
    AS t(request_id, account_id, api_key_id, model, protocol, upstream_account_id, prompt_tokens,
         completion_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, images,
         video_seconds, credits, stream, status, started_ms)
), claimed AS (
  -- The request id's claim (usage_rows is partitioned, so its uniqueness lives here): a replay claims nothing.
  ${claimRequestIds('SELECT request_id FROM input ORDER BY request_id', 'skip')}
)
INSERT INTO usage_rows (request_id, account_id, api_key_id, model, protocol, upstream_account_id,
  prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, images,
  video_seconds, credits, stream, status, started_at)
SELECT i.request_id, account_id, api_key_id, model, protocol, upstream_account_id, prompt_tokens,
  completion_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, images, video_seconds,
  credits, stream, status, to_timestamp(started_ms / 1000.0)
FROM input i JOIN claimed c ON c.request_id = i.request_id
ORDER BY i.request_id
RETURNING request_id`;

const LOCK_ACCOUNTS = 'SELECT id FROM accounts WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE';

/**
 * The `charge` entries of a batch in one statement, whatever its size (the accounts locked before, in
 * ascending order): each wallet moves by its batch total and the entries get their running balance
 * after each (the same rows as `applyLedgerEntry` one by one).
 */
const INSERT_CHARGES = `
WITH entries AS (
  SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::text[])
    WITH ORDINALITY AS t(account_id, amount, reference, api_key_id, description, ord)
), totals AS (
  SELECT account_id, sum(amount) AS total FROM entries GROUP BY account_id
), claimed AS (
  -- The (kind, reference) claims (ledger_entries is partitioned, so its uniqueness lives here).
  ${claimReferences("SELECT 'charge', reference FROM entries ORDER BY reference", 'skip')}
), moved AS (
  ${updateWallet({ balance: '+ t.total', from: 'totals t', where: 'id = t.account_id', returning: 'id, balance_credits - t.total AS before' })}
)
${INSERT_ENTRIES}
SELECT e.account_id, 'charge', e.amount,
       m.before + sum(e.amount) OVER (PARTITION BY e.account_id ORDER BY e.ord),
       e.reference, e.api_key_id, e.description
FROM entries e JOIN moved m ON m.id = e.account_id
WHERE e.reference IN (SELECT reference FROM claimed)
ORDER BY e.ord
RETURNING id`;

/** $1 key, $2 credits, $3 last used (unix ms). */
const ADD_KEY_SPEND = addKeySpend('$2', '$3', 'id = $1');

/** Inserts the batch's usage rows with their claims; returns the request ids written (not replays). */
async function insertUsageRows(client: PoolClient, rows: readonly SettledUsage[]): Promise<Set<string>> {
  const column = <T>(pick: (event: SettledUsage) => T): T[] => rows.map(pick);
  const inserted = await client.query<{ request_id: string }>(INSERT_USAGE_ROWS, [
    column((e) => e.requestId),
    column((e) => e.accountId),
    column((e) => e.apiKeyId),
    column((e) => e.model),
    column((e) => e.protocol),
    column((e) => e.upstreamAccountId),
    column((e) => e.promptTokens),
    column((e) => e.completionTokens),
    column((e) => e.cacheReadTokens),
    column((e) => e.cacheWriteTokens),
    column((e) => e.reasoningTokens),
    column((e) => e.images),
    column((e) => e.videoSeconds),
    column((e) => e.credits),
    column((e) => e.stream),
    column((e) => e.status),
    column((e) => e.startedAt),
  ]);
  return new Set(inserted.rows.map((row) => row.request_id));
}

async function writeCharges(client: PoolClient, fresh: readonly SettledUsage[]): Promise<void> {
  // A zero-cost request moves no money, so it gets no ledger row (the wallet still equals the sum).
  const charged = fresh
    .filter((event) => event.credits !== 0)
    .sort((a, b) => a.accountId - b.accountId || (a.requestId < b.requestId ? -1 : 1));
  if (charged.length === 0) return;
  const accounts = [...new Set(charged.map((event) => event.accountId))];
  await client.query(LOCK_ACCOUNTS, [accounts]);
  const inserted = await client.query(INSERT_CHARGES, [
    charged.map((e) => e.accountId),
    charged.map((e) => -e.credits),
    charged.map((e) => e.requestId),
    charged.map((e) => e.apiKeyId),
    charged.map((e) => `${e.model} (${e.protocol})`),
  ]);
  // Fewer rows: an account vanished, or a charge with this reference already existed (a race the
  // usage row's uniqueness should have prevented). Either way the transaction must not commit.
  if (inserted.rowCount !== charged.length)
    throw new Error(`wrote ${inserted.rowCount ?? 0} of ${charged.length} charge entries; retrying the batch`);
}

async function addKeysSpend(client: PoolClient, fresh: readonly SettledUsage[]): Promise<void> {
  const perKey = new Map<number, { credits: number; lastUsedMs: number }>();
  for (const event of fresh) {
    if (event.apiKeyId === null) continue;
    const sum = perKey.get(event.apiKeyId) ?? { credits: 0, lastUsedMs: 0 };
    sum.credits += event.credits;
    sum.lastUsedMs = Math.max(sum.lastUsedMs, event.startedAt);
    perKey.set(event.apiKeyId, sum);
  }
  // A deleted key matches no row: its usage rows stay, its lifetime spend has nowhere to go.
  for (const [keyId, sum] of [...perKey].sort((a, b) => a[0] - b[0]))
    await client.query(ADD_KEY_SPEND, [keyId, sum.credits, sum.lastUsedMs]);
}

/**
 * Writes the batch in the caller's transaction (`client` inside BEGIN … COMMIT): the usage rows
 * (unique request id: a replayed event inserts nothing and is charged nothing), the charges, each
 * key's lifetime spend. Locks in a fixed order (request ids, accounts, keys, each ascending), so
 * concurrent batches from several workers never deadlock one another.
 */
export async function writeUsageEvents<E extends SettledUsage>(client: PoolClient, events: readonly E[]): Promise<SettlementOutcome[]> {
  // A request id twice in one batch (a replay racing its original) is written once.
  const unique = new Map<string, E>();
  for (const event of events) if (!unique.has(event.requestId)) unique.set(event.requestId, event);
  const rows = [...unique.values()];
  if (rows.length === 0) return [];
  const written = await insertUsageRows(client, rows);
  const fresh = rows.filter((event) => written.has(event.requestId));
  await writeCharges(client, fresh);
  await addKeysSpend(client, fresh);
  return events.map((event) => ({
    requestId: event.requestId,
    written: written.has(event.requestId) && unique.get(event.requestId) === event,
  }));
}

/** Which of these request ids are settled (their usage row committed): their claims. */
export async function writtenRequestIds(db: Queryable, requestIds: readonly string[]): Promise<string[]> {
  const written = await db.query<{ request_id: string }>('SELECT request_id FROM usage_request_ids WHERE request_id = ANY($1::text[])', [
    requestIds,
  ]);
  return written.rows.map((row) => row.request_id);
}

// ---------------------------------------------------------------------------------------------
// A task's hold and settlement: one statement each, so the account row (updated by every hold,
// release and charge of the account, from every API process and worker) is locked only while
// PostgreSQL runs it, never across a client round trip. Measured: with `applyLedgerEntry` and
// `writeUsageEvents` (three to five round trips each while the row is locked) the account row
// serialized submits and settlements to a few dozen per second on one account. They write the rows
// those write: the usage row (request id = task id) and the key's spend like a settled usage event.

export interface TaskWithHold {
  id: string;
  accountId: number;
  apiKeyId: number | null;
  kind: string;
  model: string;
  /** The task's request as JSON text. */
  requestJson: string;
  estimatedCredits: number;
  deadlineAt: Date;
  now: Date;
  /** The first event's payload (status queued) as JSON text. */
  eventJson: string;
  /** Of the hold's ledger entry. */
  description: string;
}

/**
 * $1 id, $2 account, $3 key, $4 kind, $5 model, $6 request (json), $7 estimate, $8 deadline,
 * $9 now, $10 first event payload (json), $11 ledger description.
 */
const INSERT_TASK_WITH_HOLD = `
WITH task AS (
  INSERT INTO tasks (id, account_id, api_key_id, kind, model, status, progress, request, estimated_credits, event_seq, deadline_at, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, 'queued', 0, $6, $7, 1, $8, $9, $9)
  RETURNING id
), event AS (
  INSERT INTO task_events (task_id, seq, status, payload, created_at)
  SELECT id, 1, 'queued', $10::jsonb, $9 FROM task
), wallet AS (
  ${updateWallet({ balance: '- $7::bigint', held: '+ $7::bigint', where: 'id = $2 AND $7::bigint > 0 AND EXISTS (SELECT 1 FROM task)', returning: 'balance_credits' })}
), claim AS (
  ${claimReferences("SELECT 'hold', $1 FROM wallet", 'fail')}
)
${INSERT_ENTRIES}
SELECT $2, 'hold', -$7::bigint, balance_credits, $1, $3, $11 FROM wallet`;

/** Inserts the task (status queued, event 1) and holds its estimate (none when it is 0). */
export async function insertTaskWithHold(db: Queryable, task: TaskWithHold): Promise<void> {
  await db.query(INSERT_TASK_WITH_HOLD, [
    task.id,
    task.accountId,
    task.apiKeyId,
    task.kind,
    task.model,
    task.requestJson,
    task.estimatedCredits,
    task.deadlineAt,
    task.now,
    task.eventJson,
    task.description,
  ]);
}

export interface TaskSettlement {
  taskId: string;
  /** The event appended (seq, status, payload as JSON text); no payload: no event. */
  eventSeq: number;
  status: string;
  eventJson: string | null;
  accountId: number;
  apiKeyId: number | null;
  /** The hold released (0: none). */
  releasedCredits: number;
  /** The charge (0: none). */
  chargeCredits: number;
  releaseDescription: string;
  chargeDescription: string;
  /** Whether the usage row and the key's spend are written (a successful task), with these figures. */
  writesUsage: boolean;
  usage: { model: string; protocol: string; upstreamAccountId: number | null; images: number; videoSeconds: number; startedAtMs: number };
}

/**
 * $1 task id, $2 event seq, $3 status, $4 event payload (json or null), $5 account, $6 hold released,
 * $7 charge, $8 key, $9 and $10 ledger descriptions, $11 model, $12 protocol, $13 upstream account,
 * $14 images, $15 video seconds, $16 started (unix ms), $17 whether a usage row is written.
 * `balance_after` of the release is the balance before the charge: the new balance minus what the
 * later entries moved.
 */
const SETTLE_TASK = `
WITH event AS (
  INSERT INTO task_events (task_id, seq, status, payload)
  SELECT $1, $2, $3, $4::jsonb WHERE $4::jsonb IS NOT NULL
), wallet AS (
  ${updateWallet({ balance: '+ $6::bigint - $7::bigint', held: '- $6::bigint', where: 'id = $5 AND ($6::bigint > 0 OR $7::bigint > 0)', returning: 'balance_credits' })}
), planned AS (
  SELECT e.* FROM wallet CROSS JOIN (VALUES
      (1, 'hold_release', $6::bigint, -$7::bigint, $9::text),
      (2, 'charge', -$7::bigint, 0::bigint, $10::text)) AS e(ord, kind, amount, later, description)
   WHERE e.amount <> 0
), entry_claims AS (
  ${claimReferences('SELECT kind, $1 FROM planned ORDER BY ord', 'fail')}
), entries AS (
  ${INSERT_ENTRIES}
  SELECT $5, e.kind, e.amount, wallet.balance_credits - e.later, $1, $8, e.description
    FROM wallet CROSS JOIN planned e
   ORDER BY e.ord
  RETURNING id
), usage_claim AS (
  ${claimRequestIds('SELECT $1 WHERE $17::boolean', 'fail')}
), usage AS (
  INSERT INTO usage_rows (request_id, account_id, api_key_id, model, protocol, upstream_account_id, images, video_seconds, credits, stream, status, started_at)
  SELECT $1, $5, $8, $11, $12, $13, $14, $15, $7::bigint, false, 'ok', to_timestamp($16::float8 / 1000.0) WHERE $17::boolean
  RETURNING id
)
${addKeySpend('$7::bigint', '$16::float8', 'id = $8 AND $17::boolean')}`;

/** A task's terminal change, in the caller's transaction: the last statement before COMMIT. */
export async function settleTask(client: PoolClient, settlement: TaskSettlement): Promise<void> {
  const { usage } = settlement;
  await client.query(SETTLE_TASK, [
    settlement.taskId,
    settlement.eventSeq,
    settlement.status,
    settlement.eventJson,
    settlement.accountId,
    settlement.releasedCredits,
    settlement.chargeCredits,
    settlement.apiKeyId,
    settlement.releaseDescription,
    settlement.chargeDescription,
    usage.model,
    usage.protocol,
    usage.upstreamAccountId,
    usage.images,
    usage.videoSeconds,
    usage.startedAtMs,
    settlement.writesUsage,
  ]);
}

// ---------------------------------------------------------------------------------------------
// Reads: an account's transactions.

export interface LedgerEntryRecord {
  id: number;
  kind: LedgerKind;
  amountCredits: number;
  balanceAfterCredits: number;
  reference: string | null;
  apiKeyId: number | null;
  description: string | null;
  createdAt: Date;
}

export interface LedgerFilters {
  accountId: number;
  limit: number;
  beforeId?: number;
  kinds?: LedgerKind[];
  /** Entries about one request (its charge) or task. */
  reference?: string;
  from?: Date;
  to?: Date;
}

interface LedgerEntryRow {
  id: number;
  kind: LedgerKind;
  amount_credits: number;
  balance_after: number;
  reference: string | null;
  api_key_id: number | null;
  description: string | null;
  created_at: Date;
}

/** One page of an account's entries, newest first (keyset on id): up to `limit + 1`, the extra one only tells whether another page exists. */
export async function listLedgerEntries(db: Queryable, filters: LedgerFilters): Promise<LedgerEntryRecord[]> {
  const sql = sqlConditions('account_id = ?', filters.accountId);
  const add = sql.add;
  if (filters.beforeId !== undefined) add('id < ?', filters.beforeId);
  if (filters.kinds !== undefined) add('kind = ANY(?::text[])', filters.kinds);
  if (filters.reference !== undefined) add('reference = ?', filters.reference);
  if (filters.from !== undefined) add('created_at >= ?', filters.from);
  if (filters.to !== undefined) add('created_at < ?', filters.to);
  const limit = sql.param(filters.limit + 1);
  const result = await db.query<LedgerEntryRow>(
    `SELECT id, kind, amount_credits, balance_after, reference, api_key_id, description, created_at
       FROM ledger_entries WHERE ${sql.where()} ORDER BY id DESC LIMIT ${limit}`,
    sql.values,
  );
  return result.rows.map((row) => ({
    id: Number(row.id),
    kind: row.kind,
    amountCredits: row.amount_credits,
    balanceAfterCredits: row.balance_after,
    reference: row.reference,
    apiKeyId: row.api_key_id === null ? null : Number(row.api_key_id),
    description: row.description,
    createdAt: row.created_at,
  }));
}

// ---------------------------------------------------------------------------------------------
// Reads: what the billing reconciler compares with the Redis counters (workers/reconciler.ts).

/** Runs `read` in one read-only REPEATABLE READ snapshot, so its reads see the same commits. */
export async function inLedgerSnapshot<T>(db: Pool, read: (client: PoolClient) => Promise<T>): Promise<T> {
  return inTransaction(db, read, { begin: 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' });
}

/** Up to `limit` account ids after `afterId`, ascending: the reconciler's batches. */
export async function listAccountIdsAfter(db: Queryable, afterId: number, limit: number): Promise<number[]> {
  const result = await db.query<{ id: number }>('SELECT id FROM accounts WHERE id > $1 ORDER BY id LIMIT $2', [afterId, limit]);
  return result.rows.map((row) => Number(row.id));
}

/** The keys of these accounts, by key id. */
export async function listAccountsKeyIds(
  db: Queryable,
  accountIds: readonly number[],
): Promise<Array<{ keyId: number; accountId: number }>> {
  const result = await db.query<{ id: number; account_id: number }>(
    'SELECT id, account_id FROM api_keys WHERE account_id = ANY($1::bigint[]) ORDER BY id',
    [accountIds],
  );
  return result.rows.map((row) => ({ keyId: Number(row.id), accountId: Number(row.account_id) }));
}

/** The wallets of these accounts. */
export async function readAccountBalances(
  db: Queryable,
  accountIds: readonly number[],
): Promise<Array<{ accountId: number; balanceCredits: number }>> {
  const result = await db.query<{ id: number; balance_credits: number }>(
    'SELECT id, balance_credits FROM accounts WHERE id = ANY($1::bigint[])',
    [accountIds],
  );
  return result.rows.map((row) => ({ accountId: Number(row.id), balanceCredits: row.balance_credits }));
}

/** The lifetime spend of every key of these accounts. */
export async function readKeysSpent(
  db: Queryable,
  accountIds: readonly number[],
): Promise<Array<{ keyId: number; accountId: number; spentCredits: number }>> {
  const result = await db.query<{ id: number; account_id: number; spent_credits: number }>(
    'SELECT id, account_id, spent_credits FROM api_keys WHERE account_id = ANY($1::bigint[])',
    [accountIds],
  );
  return result.rows.map((row) => ({ keyId: Number(row.id), accountId: Number(row.account_id), spentCredits: row.spent_credits }));
}

/** The keys' spend per minute (unix minutes) over the last `minutes` before `nowMs`, from their usage rows. */
export async function readRecentKeySpend(
  db: Queryable,
  accountIds: readonly number[],
  nowMs: number,
  minutes: number,
): Promise<Array<{ accountId: number; keyId: number; minute: number; credits: number }>> {
  const result = await db.query<{ account_id: number; api_key_id: number; minute: number; credits: number }>(
    `SELECT account_id, api_key_id, floor(extract(epoch FROM started_at) / 60)::bigint AS minute, sum(credits)::bigint AS credits
       FROM usage_rows
      WHERE account_id = ANY($1::bigint[]) AND api_key_id IS NOT NULL
        AND started_at > to_timestamp($2::double precision / 1000) - make_interval(mins => $3)
      GROUP BY 1, 2, 3`,
    [accountIds, nowMs, minutes],
  );
  return result.rows.map((row) => ({
    accountId: Number(row.account_id),
    keyId: Number(row.api_key_id),
    minute: Number(row.minute),
    credits: row.credits,
  }));
}
