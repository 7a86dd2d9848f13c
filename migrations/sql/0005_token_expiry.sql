-- 0005_token_expiry: tokens may expire.
--
-- `memhost run` mints a token bound to one project for each CLI session it spawns and revokes
-- it when the session ends; the expiry covers the sessions that never end cleanly (memhost run
-- killed, the machine powered off), so no such token outlives its use by long. Tokens created
-- before this migration, and operator tokens created without a TTL, never expire (NULL).
ALTER TABLE api_tokens ADD COLUMN expires_at timestamptz;
