-- Usage rollups: each account's usage summed per UTC hour and per UTC day, by key and model, so daily
-- usage and key windows read a few hundred rollup rows instead of every usage row of their windows
-- (their cost no longer grows with the account's traffic). A rolling window reads whole days and
-- whole hours here and only the minutes before its first whole hour from usage_rows
-- (usage_since below).
--
-- Kept exact by statement-level triggers on usage_rows, in the writer's transaction: every statement
-- that inserts, updates or deletes usage rows (settlement, tasks, a script, an account deleted with
-- its rows) moves the rollups by the same amounts. Rows moved between partitions by
-- ensure_time_partitions (the default partition's) change nothing: those statements target a
-- partition, not usage_rows, so the triggers do not fire, and the rows' sums do not change.
--
-- Partitioned by month of `at` like usage_rows by month of started_at, with a default partition
-- (the maintenance worker creates both tables' months ahead): dropping a month of usage drops its
-- rollups' month too (dropUsageRollupsBefore in src/db/repositories/usage-rows.ts), which dropping
-- usage_rows' partitions alone would not do (no trigger fires on a dropped partition).

CREATE TABLE usage_rollups (
  span              text NOT NULL CHECK (span IN ('hour', 'day')),
  account_id        bigint NOT NULL,             -- no FK: deleting the account's usage rows empties its rollups
  at                timestamptz NOT NULL,        -- the UTC hour or day the rows started in
  api_key_id        bigint,                      -- null: usage without a key
  model             text NOT NULL,
  requests          bigint NOT NULL,
  credits           bigint NOT NULL,
  prompt_tokens     bigint NOT NULL,
  completion_tokens bigint NOT NULL,
  first_started_at  timestamptz NOT NULL         -- the bucket's oldest row (key windows' resets_at)
) PARTITION BY RANGE (at);
CREATE TABLE usage_rollups_default PARTITION OF usage_rollups DEFAULT;
-- Its figures in the index too: daily usage and windows read the index alone (an index-only scan of
-- the account's days and hours) instead of a heap page per rollup row, the rows of one account being
-- spread over the table among every other account's.
CREATE UNIQUE INDEX usage_rollups_key ON usage_rollups (account_id, span, at, api_key_id, model)
  INCLUDE (requests, credits, prompt_tokens, completion_tokens, first_started_at) NULLS NOT DISTINCT;

SELECT ensure_time_partitions('usage_rollups', 'month',
  LEAST(now(), (SELECT min(started_at) FROM usage_rows)), now() + interval '2 months');
-- Adds the statement's new rows (INSERT, UPDATE) and takes away its old ones (DELETE, UPDATE); a
-- bucket that lost rows has its oldest row read again from usage_rows (an hour or a day of one
-- account: updates and deletes of usage rows are rare, settlement only inserts).
-- The accounts are locked first, ascending (FOR NO KEY UPDATE, the lock a balance change takes),
-- then the rollup rows in key order: a settlement that writes usage rows before locking its
-- accounts and a task settlement that moves the wallet first then writes its usage row wait for one
-- another on the account instead of deadlocking over a rollup row.
CREATE FUNCTION usage_rollups_apply() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  columns constant text := 'account_id, api_key_id, model, started_at, credits, prompt_tokens, completion_tokens';
  changes text := CASE TG_OP
    WHEN 'INSERT' THEN format('SELECT 1 AS sign, %s FROM new_rows', columns)
    WHEN 'DELETE' THEN format('SELECT -1 AS sign, %s FROM old_rows', columns)
    ELSE format('SELECT -1 AS sign, %s FROM old_rows UNION ALL SELECT 1, %s FROM new_rows', columns, columns) END;
BEGIN
  EXECUTE format('SELECT 1 FROM accounts WHERE id IN (SELECT account_id FROM (%s) c) ORDER BY id FOR NO KEY UPDATE', changes);
  EXECUTE format($sql$
    INSERT INTO usage_rollups AS r (span, account_id, at, api_key_id, model, requests, credits, prompt_tokens, completion_tokens, first_started_at)
    SELECT s.span, c.account_id, date_trunc(s.span, c.started_at, 'UTC'), c.api_key_id, c.model, sum(c.sign),
           sum(c.sign * c.credits), sum(c.sign * c.prompt_tokens), sum(c.sign * c.completion_tokens), min(c.started_at)
      FROM (%s) c CROSS JOIN (VALUES ('hour'), ('day')) AS s(span)
     GROUP BY 2, 1, 3, 4, 5
     ORDER BY 2, 1, 3, 4, 5
    ON CONFLICT (account_id, span, at, api_key_id, model) DO UPDATE
       SET requests = r.requests + excluded.requests, credits = r.credits + excluded.credits,
           prompt_tokens = r.prompt_tokens + excluded.prompt_tokens,
           completion_tokens = r.completion_tokens + excluded.completion_tokens,
           first_started_at = LEAST(r.first_started_at, excluded.first_started_at)$sql$, changes);
  IF TG_OP <> 'INSERT' THEN
    -- A bucket whose last row went: no row, as if it had never had any.
    EXECUTE format($sql$
      DELETE FROM usage_rollups r USING (SELECT DISTINCT s.span, c.account_id, date_trunc(s.span, c.started_at, 'UTC') AS at
                                           FROM (%s) c CROSS JOIN (VALUES ('hour'), ('day')) AS s(span)) b
       WHERE r.account_id = b.account_id AND r.span = b.span AND r.at = b.at AND r.requests = 0$sql$, changes);
    EXECUTE format($sql$
      UPDATE usage_rollups r SET first_started_at = (
               SELECT min(u.started_at) FROM usage_rows u
                WHERE u.account_id = r.account_id AND u.started_at >= r.at
                  AND u.started_at < r.at + CASE r.span WHEN 'hour' THEN interval '1 hour' ELSE interval '24 hours' END
                  AND u.api_key_id IS NOT DISTINCT FROM r.api_key_id AND u.model = r.model)
        FROM (SELECT DISTINCT s.span, c.account_id, date_trunc(s.span, c.started_at, 'UTC') AS at, c.api_key_id, c.model
                FROM (%s) c CROSS JOIN (VALUES ('hour'), ('day')) AS s(span) WHERE c.sign = -1) b
       WHERE r.account_id = b.account_id AND r.span = b.span AND r.at = b.at
         AND r.api_key_id IS NOT DISTINCT FROM b.api_key_id AND r.model = b.model$sql$, changes);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER usage_rollups_insert AFTER INSERT ON usage_rows
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_apply();
CREATE TRIGGER usage_rollups_update AFTER UPDATE ON usage_rows
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_apply();
CREATE TRIGGER usage_rollups_delete AFTER DELETE ON usage_rows
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION usage_rollups_apply();

-- The rows already there, summed after the triggers exist: creating them locked usage_rows against
-- writes until this migration commits, so no row is written between this sum and the triggers
-- (a concurrent settlement waits for the commit, then its rows go through the triggers).
INSERT INTO usage_rollups (span, account_id, at, api_key_id, model, requests, credits, prompt_tokens, completion_tokens, first_started_at)
SELECT s.span, u.account_id, date_trunc(s.span, u.started_at, 'UTC'), u.api_key_id, u.model,
       count(*), sum(u.credits), sum(u.prompt_tokens), sum(u.completion_tokens), min(u.started_at)
  FROM usage_rows u CROSS JOIN (VALUES ('hour'), ('day')) AS s(span)
 GROUP BY 1, 2, 3, 4, 5;

-- An account's usage since `since` (`inclusive`: started_at >= since, else > since), by key and model,
-- exact: the whole UTC days after it and the whole hours before those from the rollups, the rows
-- before its first whole hour from usage_rows (at most an hour of one account's rows, through
-- usage_rows_account_started). A single SELECT in SQL, not strict: the planner inlines it into the
-- query that calls it.
CREATE FUNCTION usage_since(account bigint, since timestamptz, inclusive boolean)
RETURNS TABLE (api_key_id bigint, model text, requests bigint, credits bigint, prompt_tokens bigint, completion_tokens bigint,
               first_started_at timestamptz)
LANGUAGE sql STABLE AS $$
  SELECT parts.api_key_id, parts.model, parts.requests, parts.credits, parts.prompt_tokens, parts.completion_tokens,
         parts.first_started_at
    FROM (SELECT hour_edge, CASE WHEN date_trunc('day', hour_edge, 'UTC') = hour_edge THEN hour_edge
                                 ELSE date_trunc('day', hour_edge, 'UTC') + interval '24 hours' END AS day_edge
            FROM (SELECT CASE WHEN inclusive AND date_trunc('hour', since, 'UTC') = since THEN since
                              ELSE date_trunc('hour', since, 'UTC') + interval '1 hour' END AS hour_edge) h) e
   CROSS JOIN LATERAL (
     SELECT r.api_key_id, r.model, r.requests, r.credits, r.prompt_tokens, r.completion_tokens, r.first_started_at
       FROM usage_rollups r WHERE r.account_id = account AND r.span = 'day' AND r.at >= e.day_edge
     UNION ALL
     SELECT r.api_key_id, r.model, r.requests, r.credits, r.prompt_tokens, r.completion_tokens, r.first_started_at
       FROM usage_rollups r WHERE r.account_id = account AND r.span = 'hour' AND r.at >= e.hour_edge AND r.at < e.day_edge
     UNION ALL
     SELECT u.api_key_id, u.model, 1, u.credits, u.prompt_tokens, u.completion_tokens, u.started_at
       FROM usage_rows u WHERE u.account_id = account AND u.started_at >= since AND u.started_at < e.hour_edge
        AND (inclusive OR u.started_at <> since)
   ) parts
$$;
