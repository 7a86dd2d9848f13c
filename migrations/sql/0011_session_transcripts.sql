-- 0011_session_transcripts: sessions waiting for their summary (see docs/maintenance.md).
--
-- When a session ends, the client that ran it (memhost run, or a CLI's session-end hook) reads
-- its transcript where it lives, checks it is the session's own (host/internal/transcript), and
-- sends a bounded, redacted excerpt with the session's journal entry. The excerpt waits here,
-- inserted in the entry's transaction with the summarize job that reads it, so whichever host
-- River's leader election picks can summarise it. The row is deleted once the entry is
-- summarised (or given up on), so no transcript outlives its summary.
CREATE TABLE IF NOT EXISTS session_transcripts (
    journal_id  uuid PRIMARY KEY,
    scope_key   text NOT NULL CHECK (scope_key <> ''),
    agent       text NOT NULL DEFAULT '',
    excerpt     text NOT NULL CHECK (excerpt <> ''),
    created_at  timestamptz NOT NULL,
    -- attempts counts summaries that failed (no worker, a timeout, a bad answer); the job gives
    -- up after a few and journals why.
    attempts    integer NOT NULL DEFAULT 0,
    last_error  text NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS session_transcripts_project ON session_transcripts (scope_key, created_at);
