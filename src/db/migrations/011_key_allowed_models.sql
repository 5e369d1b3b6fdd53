-- Per-key model allowlist (issue 21): exact catalog slugs or `prefix*` patterns; empty allows every
-- model the key's group routes. Read with the key at authentication (cached per process), so the
-- check adds no query to a request.
ALTER TABLE api_keys ADD COLUMN allowed_models text[] NOT NULL DEFAULT '{}';
