-- Issue 22, the request log: one row per request that reached authentication (refusals, upstream
-- errors and client aborts included), written by the request-log worker from a Redis stream. It
-- grows without bound, so it is partitioned by day on created_at: the maintenance worker creates
-- partitions ahead and retention drops whole partitions (no row-by-row DELETE, no long locks).
-- No foreign keys: records outlive deleted keys, and a partitioned FK costs every insert a lookup.
CREATE TABLE request_records (
  request_id          text NOT NULL,
  account_id          bigint NOT NULL,
  api_key_id          bigint,
  protocol            text NOT NULL,
  model               text,
  upstream_account_id bigint,
  status              integer NOT NULL,                       -- the HTTP status the client got
  outcome             text NOT NULL CHECK (outcome IN ('ok', 'error', 'aborted')),
  error_class         text,                                   -- refusal kind, upstream_*, client_abort
  duration_ms         integer NOT NULL,
  ttfb_ms             integer,
  input_tokens        bigint NOT NULL DEFAULT 0,
  output_tokens       bigint NOT NULL DEFAULT 0,
  cost_credits        bigint NOT NULL DEFAULT 0,
  stream              boolean NOT NULL DEFAULT false,
  replayed            boolean NOT NULL DEFAULT false,
  warnings            text[] NOT NULL DEFAULT '{}',
  has_bodies          boolean NOT NULL DEFAULT false,
  created_at          timestamptz NOT NULL,                   -- when the request arrived
  PRIMARY KEY (request_id, created_at)
) PARTITION BY RANGE (created_at);

-- Newest first per account, with each listing filter in front of the time.
CREATE INDEX request_records_account_time ON request_records (account_id, created_at DESC, request_id DESC);
CREATE INDEX request_records_account_outcome ON request_records (account_id, outcome, created_at DESC);
CREATE INDEX request_records_account_status ON request_records (account_id, status, created_at DESC);
CREATE INDEX request_records_account_class ON request_records (account_id, error_class, created_at DESC) WHERE error_class IS NOT NULL;
CREATE INDEX request_records_account_model ON request_records (account_id, model, created_at DESC);
CREATE INDEX request_records_key_time ON request_records (api_key_id, created_at DESC);
CREATE INDEX request_records_account_protocol ON request_records (account_id, protocol, created_at DESC);
-- Operators list across accounts; upstream figures group by account.
CREATE INDEX request_records_time ON request_records (created_at DESC, request_id DESC);
CREATE INDEX request_records_upstream_time ON request_records (upstream_account_id, created_at DESC) WHERE upstream_account_id IS NOT NULL;

-- Bodies, only for accounts (or keys) that keep them; redacted and size-capped by the API process.
CREATE TABLE request_bodies (
  request_id     text NOT NULL,
  account_id     bigint NOT NULL,
  request_body   text,
  response_body  text,
  -- Streamed answers: the assembled result is stored, with how many events carried it.
  stream_events  integer,
  truncated      boolean NOT NULL DEFAULT false,
  created_at     timestamptz NOT NULL,
  PRIMARY KEY (request_id, created_at)
) PARTITION BY RANGE (created_at);

-- Creates the day partitions of both tables covering [from_day, to_day]; safe to call concurrently.
CREATE FUNCTION request_log_ensure_partitions(from_day date, to_day date) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  day date := from_day;
  parent text;
BEGIN
  WHILE day <= to_day LOOP
    FOREACH parent IN ARRAY ARRAY['request_records', 'request_bodies'] LOOP
      BEGIN
        EXECUTE format('CREATE TABLE IF NOT EXISTS %I PARTITION OF %I FOR VALUES FROM (%L) TO (%L)',
          parent || '_' || to_char(day, 'YYYYMMDD'), parent, day::timestamp AT TIME ZONE 'UTC', (day + 1)::timestamp AT TIME ZONE 'UTC');
      EXCEPTION WHEN duplicate_table OR unique_violation THEN
        NULL; -- another process created it first
      END;
    END LOOP;
    day := day + 1;
  END LOOP;
END $$;

SELECT request_log_ensure_partitions((now() AT TIME ZONE 'UTC')::date - 1, (now() AT TIME ZONE 'UTC')::date + 7);

-- Bodies: operator-allowed per account, kept when the account (or the key, overriding) asks.
ALTER TABLE accounts ADD COLUMN request_bodies_allowed boolean NOT NULL DEFAULT false;
ALTER TABLE accounts ADD COLUMN keep_request_bodies boolean NOT NULL DEFAULT false;
ALTER TABLE api_keys ADD COLUMN keep_request_bodies boolean;

-- Retention deletes routing decisions by age, in batches.
CREATE INDEX routing_decisions_time ON routing_decisions (created_at);
