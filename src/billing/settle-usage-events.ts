/**
 * Durable settlement of a batch of usage events, in ONE PostgreSQL transaction: the usage rows
 * (unique request id, claimed in `usage_request_ids`: a replayed event inserts nothing and is charged nothing), a `charge` ledger
 * entry per new row (reference = request id) that moves the wallet, and each key's lifetime spend.
 * Locks are taken in a fixed order (request ids, then accounts, then keys, each ascending) so
 * concurrent batches from several workers never deadlock one another.
 */
import type { Pool, PoolClient } from 'pg';
import { inTransaction } from '../db/transaction';
import type { UsageEvent } from './usage-event';

export interface SettlementOutcome {
  requestId: string;
  /** False: a row for this request id already existed, nothing was written. */
  written: boolean;
}

const INSERT_ROWS = `
WITH input AS (
  SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::int[],
    $8::int[], $9::int[], $10::int[], $11::int[], $12::int[], $13::int[], $14::bigint[], $15::bool[],
    $16::text[], $17::float8[])
    AS t(request_id, account_id, api_key_id, model, protocol, upstream_account_id, prompt_tokens,
         completion_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, images,
         video_seconds, credits, stream, status, started_ms)
), claimed AS (
  -- The request id's claim (usage_rows is partitioned, so its uniqueness lives here): a replay claims nothing.
  INSERT INTO usage_request_ids (request_id) SELECT request_id FROM input ORDER BY request_id
  ON CONFLICT DO NOTHING
  RETURNING request_id
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

/**
 * The `charge` ledger entries of a batch in two statements, whatever its size: the accounts are
 * locked in ascending order, then one statement moves each wallet by its batch total and inserts the
 * entries with their running balance after each (same rows as `applyLedgerEntry` one by one).
 */
const CHARGE_ENTRIES = `
WITH entries AS (
  SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::bigint[], $5::text[])
    WITH ORDINALITY AS t(account_id, amount, reference, api_key_id, description, ord)
), totals AS (
  SELECT account_id, sum(amount) AS total FROM entries GROUP BY account_id
), claimed AS (
  -- The (kind, reference) claims (ledger_entries is partitioned, so its uniqueness lives here).
  INSERT INTO ledger_references (kind, reference) SELECT 'charge', reference FROM entries ORDER BY reference
  ON CONFLICT DO NOTHING
  RETURNING reference
), moved AS (
  UPDATE accounts a SET balance_credits = a.balance_credits + t.total FROM totals t
   WHERE a.id = t.account_id RETURNING a.id, a.balance_credits - t.total AS before
)
INSERT INTO ledger_entries (account_id, kind, amount_credits, balance_after, reference, api_key_id, description)
SELECT e.account_id, 'charge', e.amount,
       m.before + sum(e.amount) OVER (PARTITION BY e.account_id ORDER BY e.ord),
       e.reference, e.api_key_id, e.description
FROM entries e JOIN moved m ON m.id = e.account_id
WHERE e.reference IN (SELECT reference FROM claimed)
ORDER BY e.ord
RETURNING id`;

async function writeCharges(client: PoolClient, fresh: readonly UsageEvent[]): Promise<void> {
  // A zero-cost request moves no money, so it gets no ledger row (the wallet still equals the sum).
  const charged = fresh.filter((event) => event.credits !== 0)
    .sort((a, b) => a.accountId - b.accountId || (a.requestId < b.requestId ? -1 : 1));
  if (charged.length === 0) return;
  const accounts = [...new Set(charged.map((event) => event.accountId))];
  await client.query('SELECT id FROM accounts WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE', [accounts]);
  const inserted = await client.query(CHARGE_ENTRIES, [
    charged.map((e) => e.accountId), charged.map((e) => -e.credits), charged.map((e) => e.requestId),
    charged.map((e) => e.apiKeyId), charged.map((e) => `${e.model} (${e.protocol})`),
  ]);
  // Fewer rows: an account vanished, or a charge with this reference already existed (a race the
  // usage row's uniqueness should have prevented). Either way the transaction must not commit.
  if (inserted.rowCount !== charged.length) throw new Error(`wrote ${inserted.rowCount ?? 0} of ${charged.length} charge entries; retrying the batch`);
}

/** Writes the batch in the caller's transaction (`client` inside BEGIN … COMMIT). */
export async function writeUsageEvents(client: PoolClient, events: readonly UsageEvent[]): Promise<SettlementOutcome[]> {
  // A request id twice in one batch (a replay racing its original) is written once.
  const unique = new Map<string, UsageEvent>();
  for (const event of events) if (!unique.has(event.requestId)) unique.set(event.requestId, event);
  const rows = [...unique.values()];
  if (rows.length === 0) return [];
  const column = <T>(pick: (event: UsageEvent) => T): T[] => rows.map(pick);
  const inserted = await client.query<{ request_id: string }>(INSERT_ROWS, [
    column((e) => e.requestId), column((e) => e.accountId), column((e) => e.apiKeyId), column((e) => e.model),
    column((e) => e.protocol), column((e) => e.upstreamAccountId), column((e) => e.promptTokens),
    column((e) => e.completionTokens), column((e) => e.cacheReadTokens), column((e) => e.cacheWriteTokens),
    column((e) => e.reasoningTokens), column((e) => e.images), column((e) => e.videoSeconds), column((e) => e.credits),
    column((e) => e.stream), column((e) => e.status), column((e) => e.startedAt),
  ]);
  const written = new Set(inserted.rows.map((row) => row.request_id));
  const fresh = rows.filter((event) => written.has(event.requestId));

  await writeCharges(client, fresh);

  const perKey = new Map<number, { credits: number; lastUsedMs: number }>();
  for (const event of fresh) {
    if (event.apiKeyId === null) continue;
    const sum = perKey.get(event.apiKeyId) ?? { credits: 0, lastUsedMs: 0 };
    sum.credits += event.credits;
    sum.lastUsedMs = Math.max(sum.lastUsedMs, event.startedAt);
    perKey.set(event.apiKeyId, sum);
  }
  for (const [keyId, sum] of [...perKey].sort((a, b) => a[0] - b[0])) {
    // A deleted key matches no row: its usage rows stay, its lifetime spend has nowhere to go.
    await client.query(
      `UPDATE api_keys SET spent_credits = spent_credits + $2,
         last_used_at = GREATEST(COALESCE(last_used_at, to_timestamp(0)), to_timestamp($3 / 1000.0))
       WHERE id = $1`,
      [keyId, sum.credits, sum.lastUsedMs],
    );
  }
  return events.map((event) => ({ requestId: event.requestId, written: written.has(event.requestId) && unique.get(event.requestId) === event }));
}

export interface SettleOptions {
  /** Test seam: runs inside the open transaction just before COMMIT (e.g. to kill a worker mid-batch). */
  beforeCommit?: () => Promise<void>;
}

/** Settles a batch in its own transaction; all or nothing. */
export async function settleUsageEvents(db: Pool, events: readonly UsageEvent[], options: SettleOptions = {}): Promise<SettlementOutcome[]> {
  return inTransaction(db, async (client) => {
    const outcomes = await writeUsageEvents(client, events);
    await options.beforeCommit?.();
    return outcomes;
  });
}
