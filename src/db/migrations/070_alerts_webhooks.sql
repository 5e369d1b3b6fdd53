-- Alerts and webhooks (issue 22 item 5). A rule watches one figure of a key or of an account and
-- fires once when the figure crosses its threshold; `firing` holds it until the figure goes back
-- (re-armed). Firings and test calls become deliveries to the account's webhooks, sent by the
-- workers' `webhooks` queue with retries; each delivery keeps its attempts for the delivery log.
CREATE TABLE alert_rules (
  id                 bigserial PRIMARY KEY,
  account_id         bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  api_key_id         bigint REFERENCES api_keys(id) ON DELETE CASCADE,
  kind               text NOT NULL CHECK (kind IN ('key_quota', 'key_spend_window', 'wallet_below', 'error_rate')),
  -- key_spend_window only: which window.
  spend_window       text CHECK (spend_window IN ('5h', '1d', '7d')),
  -- A share (0..1] for key_quota, key_spend_window and error_rate.
  threshold          double precision,
  -- wallet_below only: the amount in credits.
  threshold_credits  bigint,
  -- error_rate only: the window looked at, and how many requests it needs before a rate counts.
  window_minutes     integer,
  min_requests       integer,
  firing             boolean NOT NULL DEFAULT false,
  last_value         double precision,
  last_fired_at      timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX alert_rules_account ON alert_rules(account_id);

CREATE TABLE webhooks (
  id                bigserial PRIMARY KEY,
  account_id        bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  url               text NOT NULL,
  -- Alert events delivered; the test event is always delivered.
  events            text[] NOT NULL,
  -- AES-256-GCM ciphertext of the signing secret (the gateway signs with it, so it is kept reversibly).
  secret_encrypted  text NOT NULL,
  secret_last4      text NOT NULL,
  active            boolean NOT NULL DEFAULT true,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_account ON webhooks(account_id);

CREATE TABLE webhook_deliveries (
  id               bigserial PRIMARY KEY,
  webhook_id       bigint NOT NULL REFERENCES webhooks(id) ON DELETE CASCADE,
  account_id       bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  alert_rule_id    bigint REFERENCES alert_rules(id) ON DELETE SET NULL,
  event            text NOT NULL,
  payload          jsonb NOT NULL,
  status           text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
  attempts         integer NOT NULL DEFAULT 0,
  last_http_status integer,
  last_error       text,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_attempt_at  timestamptz,
  delivered_at     timestamptz
);
CREATE INDEX webhook_deliveries_account ON webhook_deliveries(account_id, id DESC);
