-- Initial schema. Money is integer credits (1 USD = 1,000,000 credits) in bigint columns.

CREATE TABLE accounts (
  id               bigserial PRIMARY KEY,
  name             text NOT NULL,
  kind             text NOT NULL DEFAULT 'user' CHECK (kind IN ('user', 'organization')),
  tier             text NOT NULL DEFAULT 'free' CHECK (tier IN ('free', 'pro', 'max', 'enterprise')),
  -- NULL: the tier's default cap (free 5, pro 25, max 100); enterprise sets its own.
  concurrency_cap  integer CHECK (concurrency_cap IS NULL OR concurrency_cap > 0),
  -- Wallet balance; always equals the sum of the account's ledger amounts.
  balance_credits  bigint NOT NULL DEFAULT 0,
  -- Credits held by running tasks, not yet settled.
  held_credits     bigint NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE console_users (
  id             bigserial PRIMARY KEY,
  account_id     bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  email          text NOT NULL UNIQUE,
  password_hash  text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE console_sessions (
  id_hash     text PRIMARY KEY,           -- SHA-256 of the session cookie value
  user_id     bigint NOT NULL REFERENCES console_users(id) ON DELETE CASCADE,
  csrf_token  text NOT NULL,
  expires_at  timestamptz NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE routing_groups (
  id          bigserial PRIMARY KEY,
  name        text NOT NULL UNIQUE,
  -- NULL: routes every family (the `default` group); else the one family name it routes.
  family      text,
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE upstream_accounts (
  id                    bigserial PRIMARY KEY,
  group_id              bigint NOT NULL REFERENCES routing_groups(id) ON DELETE CASCADE,
  name                  text NOT NULL,
  protocol              text NOT NULL CHECK (protocol IN ('messages', 'responses', 'chat', 'generate-content')),
  base_url              text NOT NULL,
  -- AES-256-GCM ciphertext of the provider credential (key from config, not the database).
  credential_encrypted  text NOT NULL,
  -- Catalog slugs this account serves; '{*}' serves every model of the protocol.
  models                text[] NOT NULL,
  priority              integer NOT NULL DEFAULT 0,  -- lower runs first
  weight                integer NOT NULL DEFAULT 1 CHECK (weight > 0),
  status                text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled')),
  created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX upstream_accounts_group ON upstream_accounts(group_id);

CREATE TABLE api_keys (
  id                 bigserial PRIMARY KEY,
  account_id         bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  group_id           bigint NOT NULL REFERENCES routing_groups(id),
  name               text NOT NULL,
  secret_hmac        text NOT NULL UNIQUE,      -- HMAC-SHA256 of the secret: the lookup
  secret_encrypted   text NOT NULL,             -- AES-256-GCM ciphertext: the reveal
  secret_last4       text NOT NULL,
  quota_credits      bigint NOT NULL DEFAULT 0, -- lifetime cap; 0 unlimited
  spent_credits      bigint NOT NULL DEFAULT 0, -- lifetime spend (settled)
  rate_limit_5h      bigint NOT NULL DEFAULT 0, -- credits; 0 unlimited
  rate_limit_1d      bigint NOT NULL DEFAULT 0,
  rate_limit_7d      bigint NOT NULL DEFAULT 0,
  ip_whitelist       text[] NOT NULL DEFAULT '{}',
  ip_blacklist       text[] NOT NULL DEFAULT '{}',
  status             text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'disabled', 'revoked')),
  expires_at         timestamptz,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  last_used_at       timestamptz
);
CREATE INDEX api_keys_account ON api_keys(account_id);

CREATE TABLE usage_rows (
  id                  bigserial PRIMARY KEY,
  request_id          text NOT NULL UNIQUE,      -- idempotency: a replayed event writes nothing twice
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
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX usage_rows_account_time ON usage_rows(account_id, id DESC);
CREATE INDEX usage_rows_key ON usage_rows(api_key_id, id DESC);

CREATE TABLE ledger_entries (
  id                   bigserial PRIMARY KEY,
  account_id           bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind                 text NOT NULL CHECK (kind IN ('topup', 'refund', 'adjustment', 'charge', 'hold', 'hold_release')),
  amount_credits       bigint NOT NULL,          -- signed: charges and holds are negative
  balance_after        bigint NOT NULL,
  -- Idempotency: one entry per (kind, reference), e.g. the request id of a charge, the task id of a hold.
  reference            text,
  api_key_id           bigint,
  description          text,
  created_at           timestamptz NOT NULL DEFAULT now(),
  UNIQUE (kind, reference)
);
CREATE INDEX ledger_entries_account ON ledger_entries(account_id, id DESC);

CREATE TABLE tasks (
  id                 text PRIMARY KEY,            -- task_<random>, unguessable
  account_id         bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  api_key_id         bigint,
  kind               text NOT NULL CHECK (kind IN ('video', 'image_batch')),
  model              text NOT NULL,
  status             text NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  progress           integer NOT NULL DEFAULT 0,
  request            jsonb NOT NULL,
  provider_ref       text,                        -- upstream operation name
  upstream_account_id bigint,
  result             jsonb,                       -- object keys and presigned URLs
  error              jsonb,
  estimated_credits  bigint NOT NULL,
  actual_credits     bigint,
  event_seq          integer NOT NULL DEFAULT 0,  -- last published state-change number (SSE ids)
  deadline_at        timestamptz NOT NULL,
  created_at         timestamptz NOT NULL DEFAULT now(),
  started_at         timestamptz,
  finished_at        timestamptz,
  updated_at         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX tasks_account ON tasks(account_id, created_at DESC);

-- Every published task state change, so a stream can resume from Last-Event-ID.
CREATE TABLE task_events (
  task_id     text NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  seq         integer NOT NULL,
  status      text NOT NULL,
  payload     jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (task_id, seq)
);

CREATE TABLE stored_responses (
  id           text PRIMARY KEY,                  -- resp_…
  account_id   bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  model        text NOT NULL,
  -- The whole conversation up to and including this answer, as IR turns (and system), for chaining.
  conversation jsonb NOT NULL,
  response     jsonb NOT NULL,                    -- the Responses object as returned
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stored_responses_account ON stored_responses(account_id);
