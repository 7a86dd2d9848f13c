-- 0014_console_sessions: the operator console's sign-in codes and browser sessions (see
-- docs/console.md, "Signing in").
--
-- `memhost console` asks the host for a sign-in code for the operator's token; the code is
-- single-use and expires within minutes. Redeeming it opens a browser session: the cookie holds
-- a 256-bit random id, and only its sha256 is stored, as for tokens. A session acts as its token,
-- re-checked on every request: revoking or expiring the token ends its sessions, and signing
-- out revokes the one session. Rows go with their token (ON DELETE CASCADE) when the token purge
-- deletes it.
CREATE TABLE IF NOT EXISTS console_signin_codes (
    code_hash  bytea PRIMARY KEY,
    token_id   uuid NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    expires_at timestamptz NOT NULL,
    used_at    timestamptz
);
CREATE INDEX IF NOT EXISTS console_signin_codes_token ON console_signin_codes (token_id);
CREATE INDEX IF NOT EXISTS console_signin_codes_expires ON console_signin_codes (expires_at);

CREATE TABLE IF NOT EXISTS console_sessions (
    id_hash      bytea PRIMARY KEY,
    token_id     uuid NOT NULL REFERENCES api_tokens (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    revoked_at   timestamptz
);
CREATE INDEX IF NOT EXISTS console_sessions_token ON console_sessions (token_id);
CREATE INDEX IF NOT EXISTS console_sessions_expires ON console_sessions (expires_at);
