-- The routing decision chain of requests that did not simply run on their first account: a
-- failover, a skipped account (cooling down, disabled), a refusal. Every candidate and what became
-- of it, for the console's usage detail and for operators (refused requests have no usage row, so
-- this is also their record). Requests served by their first account are only logged (debug).
CREATE TABLE routing_decisions (
  request_id  text PRIMARY KEY,
  account_id  bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  api_key_id  bigint,
  model       text NOT NULL,
  outcome     text NOT NULL CHECK (outcome IN ('served', 'refused', 'abandoned')),
  -- [{account_id, protocol, outcome: served|failed|skipped|not_tried, failure?, reason?, until?, sticky?}]
  steps       jsonb NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX routing_decisions_account ON routing_decisions(account_id, created_at DESC);
