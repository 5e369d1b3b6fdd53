-- Usage rows, ledger entries and routing decisions partitioned by time (PostgreSQL declarative
-- partitioning), converted in place: each table is renamed, a partitioned table of the same name and
-- columns takes its place, its rows are copied over, the old table is dropped. Runs in the migration's
-- one transaction (all or nothing); the copy locks the three tables for as long as it takes.
--
--   usage_rows       by month of started_at (the time every console query and the reconciler read)
--   ledger_entries   by month of created_at (kept for ever: the wallet is the sum of its entries)
--   routing_decisions by day of created_at (ROUTING_DECISIONS_RETENTION_DAYS drops whole days)
--
-- The maintenance worker creates partitions ahead. Usage rows and ledger entries are written in the
-- money transactions, which must never fail on a missing partition: a DEFAULT partition catches any
-- row outside the partitions (a clock far off, a worker that did not run), and `ensure_time_partitions`
-- moves such rows into the partition it creates later for their range. Routing decisions have no
-- default partition (it would forbid DETACH … CONCURRENTLY, which their retention uses): their
-- writer creates a missing day's partition and writes again, like the request log's.
--
-- A unique index of a partitioned table must contain the partition key, so the uniqueness that
-- did not (a usage row's request id, the ledger's (kind, reference), a routing decision's request id)
-- moves to a small claim table, not partitioned, inserted in the same statement as the row: a
-- duplicate claim means the row exists (or is being written by a concurrent transaction, whose
-- outcome the claim waits for), exactly as the unique index behaved.

-- Creates the partitions of `parent` (by `unit`: 'day' or 'month', UTC) covering [from_ts, to_ts],
-- named parent_YYYYMMDD or parent_YYYYMM; safe to call concurrently and again. Rows of a new range
-- that already sit in the default partition are moved into the new partition.
CREATE FUNCTION ensure_time_partitions(parent text, unit text, from_ts timestamptz, to_ts timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  start_at timestamp := date_trunc(unit, from_ts AT TIME ZONE 'UTC');
  next_at timestamp;
  name text;
  key text;
BEGIN
  IF unit NOT IN ('day', 'month') THEN RAISE EXCEPTION 'unit must be day or month, not %', unit; END IF;
  SELECT a.attname INTO STRICT key FROM pg_partitioned_table p
    JOIN pg_attribute a ON a.attrelid = p.partrelid AND a.attnum = p.partattrs[0]
   WHERE p.partrelid = parent::regclass;
  WHILE start_at <= to_ts AT TIME ZONE 'UTC' LOOP
    next_at := start_at + ('1 ' || unit)::interval;
    name := parent || '_' || to_char(start_at, CASE unit WHEN 'day' THEN 'YYYYMMDD' ELSE 'YYYYMM' END);
    IF to_regclass(quote_ident(name)) IS NULL THEN
      BEGIN
        EXECUTE format('CREATE TABLE %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
          name, parent, start_at AT TIME ZONE 'UTC', next_at AT TIME ZONE 'UTC');
      EXCEPTION
        WHEN duplicate_table OR unique_violation THEN
          NULL; -- another process created it first
        WHEN check_violation THEN
          -- The default partition holds rows of this range: move them into the new partition.
          EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name, parent);
          EXECUTE format('WITH moved AS (DELETE FROM %I WHERE %I >= %L AND %I < %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
            parent || '_default', key, start_at AT TIME ZONE 'UTC', key, next_at AT TIME ZONE 'UTC', name);
          EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
            parent, name, start_at AT TIME ZONE 'UTC', next_at AT TIME ZONE 'UTC');
      END;
    END IF;
    start_at := next_at;
  END LOOP;
END $$;

-- ---------------------------------------------------------------------------------------------
-- usage_rows
ALTER TABLE usage_rows RENAME TO usage_rows_unpartitioned;
ALTER TABLE usage_rows_unpartitioned DROP CONSTRAINT usage_rows_pkey;
ALTER TABLE usage_rows_unpartitioned DROP CONSTRAINT usage_rows_request_id_key;
ALTER TABLE usage_rows_unpartitioned DROP CONSTRAINT usage_rows_account_id_fkey;
DROP INDEX usage_rows_account_time, usage_rows_key, usage_rows_account_started, usage_rows_key_started;
ALTER SEQUENCE usage_rows_id_seq OWNED BY NONE;

CREATE TABLE usage_rows (
  id                  bigint NOT NULL DEFAULT nextval('usage_rows_id_seq'),
  request_id          text NOT NULL,             -- unique through usage_request_ids
  account_id          bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  api_key_id          bigint,                    -- no FK: usage outlives a deleted key
  model               text NOT NULL,
  protocol            text NOT NULL,
  upstream_account_id bigint,
  prompt_tokens       integer NOT NULL DEFAULT 0, -- all input tokens, cached included
  completion_tokens   integer NOT NULL DEFAULT 0, -- reasoning included
  cache_read_tokens   integer NOT NULL DEFAULT 0,
  cache_write_tokens  integer NOT NULL DEFAULT 0,
  reasoning_tokens    integer NOT NULL DEFAULT 0,
  images              integer NOT NULL DEFAULT 0,
  video_seconds       integer NOT NULL DEFAULT 0,
  credits             bigint NOT NULL,
  stream              boolean NOT NULL DEFAULT false,
  status              text NOT NULL DEFAULT 'ok',  -- ok | aborted (client went away, billed to the abort)
  started_at          timestamptz NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id, started_at)
) PARTITION BY RANGE (started_at);
ALTER SEQUENCE usage_rows_id_seq OWNED BY usage_rows.id;
CREATE TABLE usage_rows_default PARTITION OF usage_rows DEFAULT;

-- Idempotency: one usage row per request id (a replayed event writes nothing twice).
CREATE TABLE usage_request_ids (request_id text PRIMARY KEY);

SELECT ensure_time_partitions('usage_rows', 'month',
  LEAST(now(), (SELECT min(started_at) FROM usage_rows_unpartitioned)), now() + interval '2 months');
INSERT INTO usage_rows (id, request_id, account_id, api_key_id, model, protocol, upstream_account_id, prompt_tokens,
  completion_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, images, video_seconds, credits, stream,
  status, started_at, created_at)
SELECT id, request_id, account_id, api_key_id, model, protocol, upstream_account_id, prompt_tokens,
  completion_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, images, video_seconds, credits, stream,
  status, started_at, created_at
FROM usage_rows_unpartitioned;
INSERT INTO usage_request_ids (request_id) SELECT request_id FROM usage_rows_unpartitioned;
DROP TABLE usage_rows_unpartitioned;

-- The indexes of every query: the listing (newest first, each filter in front), a request's row,
-- daily usage and key windows (account or key and start time), the reconciler, upstream figures.
CREATE INDEX usage_rows_account_time ON usage_rows (account_id, id DESC);
CREATE INDEX usage_rows_key ON usage_rows (api_key_id, id DESC);
CREATE INDEX usage_rows_account_model ON usage_rows (account_id, model, id DESC);
CREATE INDEX usage_rows_account_protocol ON usage_rows (account_id, protocol, id DESC);
CREATE INDEX usage_rows_account_status ON usage_rows (account_id, status, id DESC);
CREATE INDEX usage_rows_request ON usage_rows (request_id);
CREATE INDEX usage_rows_account_started ON usage_rows (account_id, started_at);
CREATE INDEX usage_rows_key_started ON usage_rows (api_key_id, started_at);
CREATE INDEX usage_rows_upstream_started ON usage_rows (upstream_account_id, started_at) WHERE upstream_account_id IS NOT NULL;

-- ---------------------------------------------------------------------------------------------
-- ledger_entries
ALTER TABLE ledger_entries RENAME TO ledger_entries_unpartitioned;
ALTER TABLE ledger_entries_unpartitioned DROP CONSTRAINT ledger_entries_pkey;
ALTER TABLE ledger_entries_unpartitioned DROP CONSTRAINT ledger_entries_kind_reference_key;
ALTER TABLE ledger_entries_unpartitioned DROP CONSTRAINT ledger_entries_account_id_fkey;
ALTER TABLE ledger_entries_unpartitioned DROP CONSTRAINT ledger_entries_kind_check;
DROP INDEX ledger_entries_account;
ALTER SEQUENCE ledger_entries_id_seq OWNED BY NONE;

CREATE TABLE ledger_entries (
  id                   bigint NOT NULL DEFAULT nextval('ledger_entries_id_seq'),
  account_id           bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind                 text NOT NULL CHECK (kind IN ('topup', 'refund', 'adjustment', 'charge', 'hold', 'hold_release')),
  amount_credits       bigint NOT NULL,          -- signed: charges and holds are negative
  balance_after        bigint NOT NULL,
  -- Idempotency: one entry per (kind, reference), through ledger_references.
  reference            text,
  api_key_id           bigint,
  description          text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (id, created_at)
) PARTITION BY RANGE (created_at);
ALTER SEQUENCE ledger_entries_id_seq OWNED BY ledger_entries.id;
CREATE TABLE ledger_entries_default PARTITION OF ledger_entries DEFAULT;

-- Idempotency: one ledger entry per (kind, reference), e.g. the request id of a charge, the task id of a hold.
CREATE TABLE ledger_references (
  kind       text NOT NULL,
  reference  text NOT NULL,
  PRIMARY KEY (kind, reference)
);

SELECT ensure_time_partitions('ledger_entries', 'month',
  LEAST(now(), (SELECT min(created_at) FROM ledger_entries_unpartitioned)), now() + interval '2 months');
INSERT INTO ledger_entries (id, account_id, kind, amount_credits, balance_after, reference, api_key_id, description, created_at)
SELECT id, account_id, kind, amount_credits, balance_after, reference, api_key_id, description, created_at
FROM ledger_entries_unpartitioned;
INSERT INTO ledger_references (kind, reference) SELECT kind, reference FROM ledger_entries_unpartitioned WHERE reference IS NOT NULL;
DROP TABLE ledger_entries_unpartitioned;

CREATE INDEX ledger_entries_account ON ledger_entries (account_id, id DESC);
CREATE INDEX ledger_entries_reference ON ledger_entries (reference, kind) WHERE reference IS NOT NULL;

-- ---------------------------------------------------------------------------------------------
-- routing_decisions
ALTER TABLE routing_decisions RENAME TO routing_decisions_unpartitioned;
ALTER TABLE routing_decisions_unpartitioned DROP CONSTRAINT routing_decisions_pkey;
ALTER TABLE routing_decisions_unpartitioned DROP CONSTRAINT routing_decisions_account_id_fkey;
ALTER TABLE routing_decisions_unpartitioned DROP CONSTRAINT routing_decisions_outcome_check;
DROP INDEX routing_decisions_account, routing_decisions_time;

CREATE TABLE routing_decisions (
  request_id  text NOT NULL,                     -- unique through routing_decision_ids
  account_id  bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  api_key_id  bigint,
  model       text NOT NULL,
  outcome     text NOT NULL CHECK (outcome IN ('served', 'refused', 'abandoned')),
  -- [{account_id, protocol, outcome: served|failed|skipped|not_tried, failure?, reason?, until?, sticky?}]
  steps       jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (request_id, created_at)
) PARTITION BY RANGE (created_at);

-- Idempotency: one decision per request id. Retention removes a claim with its decision's day.
CREATE TABLE routing_decision_ids (
  request_id  text PRIMARY KEY,
  created_at  timestamptz NOT NULL
);
CREATE INDEX routing_decision_ids_time ON routing_decision_ids (created_at);

SELECT ensure_time_partitions('routing_decisions', 'day',
  LEAST(now() - interval '1 day', (SELECT min(created_at) FROM routing_decisions_unpartitioned)), now() + interval '7 days');
INSERT INTO routing_decisions (request_id, account_id, api_key_id, model, outcome, steps, created_at)
SELECT request_id, account_id, api_key_id, model, outcome, steps, created_at FROM routing_decisions_unpartitioned;
INSERT INTO routing_decision_ids (request_id, created_at) SELECT request_id, created_at FROM routing_decisions_unpartitioned;
DROP TABLE routing_decisions_unpartitioned;

CREATE INDEX routing_decisions_account ON routing_decisions (account_id, created_at DESC);
