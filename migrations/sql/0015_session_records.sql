-- 0015_session_records: what each agent session was given and used, and what finding each stored
-- fact cost (see docs/value.md). Ids and counts only: no prompt, task or answer text is kept.
--
-- agent_sessions is one row per session of a CLI in a project, under the key its client names it
-- by: memhost run's own session key (which it also hands the CLI's MCP entry as a header and its
-- hooks), or, for a CLI connected by `memhost connect`, the CLI's own session id (what its hooks
-- receive). cli_session is the CLI's own id once known (memhost run learns it at the end).
CREATE TABLE IF NOT EXISTS agent_sessions (
    id           uuid PRIMARY KEY,
    scope_key    text NOT NULL CHECK (scope_key <> ''),
    client_key   text NOT NULL CHECK (client_key <> ''),
    cli          text NOT NULL DEFAULT '',
    origin       text NOT NULL CHECK (origin IN ('run', 'connected')),
    cli_session  text NOT NULL DEFAULT '',
    -- task_scoped: the banner carried a section chosen by the session's task (its text is not kept).
    task_scoped  boolean NOT NULL DEFAULT false,
    started_at   timestamptz NOT NULL,
    ended_at     timestamptz,
    -- The session's own token count and turns, from its transcript's usage fields at the end;
    -- NULL when the CLI writes none or the transcript could not be read.
    tokens       bigint,
    turns        integer,
    UNIQUE (scope_key, client_key)
);
CREATE INDEX IF NOT EXISTS agent_sessions_recent ON agent_sessions (scope_key, started_at DESC, id DESC);

-- session_memories: one row per (session, memory, event). given: a banner or a prompt hook
-- carried the memory; retrieved: a search returned it or a get read it; stored: the session
-- wrote it (a fold counts: the session wrote what it holds); cited: the agent named its short id.
-- channel says through what (banner, prompt, search, get, store, transcript); tokens is what
-- reading the memory cost the session there (its line in the banner or the tool result).
-- A memory purged after its grace takes its rows with it.
CREATE TABLE IF NOT EXISTS session_memories (
    session_id  uuid NOT NULL REFERENCES agent_sessions (id) ON DELETE CASCADE,
    memory_id   uuid NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    event       text NOT NULL CHECK (event IN ('given', 'retrieved', 'stored', 'cited')),
    channel     text NOT NULL DEFAULT '',
    tokens      integer NOT NULL DEFAULT 0 CHECK (tokens >= 0),
    at          timestamptz NOT NULL,
    PRIMARY KEY (session_id, memory_id, event)
);
CREATE INDEX IF NOT EXISTS session_memories_memory ON session_memories (memory_id, at DESC);

-- memory_discovery: what finding a stored fact cost the session that stored it, measured from
-- that session's transcript (the turns since its previous store): tokens the CLI recorded, wall
-- time and turns. The first measurement of a memory stands.
CREATE TABLE IF NOT EXISTS memory_discovery (
    memory_id   uuid PRIMARY KEY REFERENCES memories (id) ON DELETE CASCADE,
    session_id  uuid REFERENCES agent_sessions (id) ON DELETE SET NULL,
    scope_key   text NOT NULL,
    tokens      bigint NOT NULL CHECK (tokens >= 0),
    seconds     double precision NOT NULL CHECK (seconds >= 0),
    turns       integer NOT NULL CHECK (turns >= 0),
    measured_at timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS memory_discovery_session ON memory_discovery (session_id);
