-- Group grants (issue 21, finding 10). A routing group is `public` (every account may use it: the
-- bootstrap's `default` and family groups, and every group that existed before this migration) or
-- `private`: usable only by the accounts an operator granted it to. Key authentication reads the
-- grant with the key (one query, cached per process); revoking one invalidates the account's keys
-- in the group on every API process.
ALTER TABLE routing_groups ADD COLUMN visibility text NOT NULL DEFAULT 'public' CHECK (visibility IN ('public', 'private'));

CREATE TABLE routing_group_grants (
  group_id    bigint NOT NULL REFERENCES routing_groups(id) ON DELETE CASCADE,
  account_id  bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  created_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (group_id, account_id)
);
CREATE INDEX routing_group_grants_account ON routing_group_grants(account_id);
