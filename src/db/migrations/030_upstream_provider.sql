-- The provider preset an upstream account was added with (anthropic, openai, azure-openai, …; NULL
-- for accounts added by protocol and base URL alone) and, for Azure OpenAI, the `api-version` query
-- its deployment URLs carry. The preset decides the path convention and the credential header.
ALTER TABLE upstream_accounts ADD COLUMN provider text;
ALTER TABLE upstream_accounts ADD COLUMN api_version text;

-- The last verification of the account (when added or changed, the console's Test button, the
-- admin CLI's `upstream test`): when, whether it passed and what it said. Shown as its health by
-- `upstream list` and the operator API (beside each API process's own cooldowns).
ALTER TABLE upstream_accounts ADD COLUMN last_check_at timestamptz;
ALTER TABLE upstream_accounts ADD COLUMN last_check_ok boolean;
ALTER TABLE upstream_accounts ADD COLUMN last_check_message text;
