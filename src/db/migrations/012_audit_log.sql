-- The audit log (issue 21): every change to keys, money, grants, groups, upstream accounts, the
-- catalog and console users, and every console login, with who, when, from where and what changed
-- (before/after, never a secret). No foreign keys: the record outlives what it describes.
CREATE TABLE audit_events (
  id          bigserial PRIMARY KEY,
  -- The account concerned; NULL for operator-wide changes (an upstream account, the catalog).
  account_id  bigint,
  actor_type  text NOT NULL CHECK (actor_type IN ('console_user', 'api_key', 'cli', 'anonymous')),
  actor_id    bigint,
  -- Readable actor: a console user's email, a key's name; never a secret.
  actor_label text,
  action      text NOT NULL,
  target_type text NOT NULL,
  target_id   text,
  address     text,
  before      jsonb,
  after       jsonb,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_account ON audit_events(account_id, id DESC);
CREATE INDEX audit_events_action ON audit_events(action, id DESC);

-- Append-only for every role the application connects as (owner included): rows can be inserted and
-- read, never changed or removed. Only a role allowed to drop the trigger (a superuser, by hand) can.
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only (% refused)', TG_OP USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();
REVOKE UPDATE, DELETE, TRUNCATE ON audit_events FROM PUBLIC;
