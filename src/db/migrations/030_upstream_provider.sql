-- The provider preset an upstream account was added with (anthropic, openai, azure-openai, …; NULL
-- for accounts added by protocol and base URL alone) and, for Azure OpenAI, the `api-version` query
-- its deployment URLs carry. The preset decides the path convention and the credential header.
ALTER TABLE upstream_accounts ADD COLUMN provider text;
ALTER TABLE upstream_accounts ADD COLUMN api_version text;
