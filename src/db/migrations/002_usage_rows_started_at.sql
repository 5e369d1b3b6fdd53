-- Usage rows by account and start time: the 7-day window the billing reconciler compares with
-- Redis, and the `from`/`to` filters of the usage listing, read a range instead of an account's
-- whole history.
CREATE INDEX usage_rows_account_started ON usage_rows(account_id, started_at);

-- Usage rows by key and start time: the spend windows rebuilt from PostgreSQL (rebuild-counters).
CREATE INDEX usage_rows_key_started ON usage_rows(api_key_id, started_at);
