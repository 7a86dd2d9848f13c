-- 0001_core: memories, their history ledger, the change feed, and API tokens.

-- The extension is database-wide; pin it to public so every schema (tests use one per test) sees
-- the same vector type.
CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;

-- seq orders every change another host must replay into its in-process indexes (see
-- host/internal/lexical). Hits do not take a seq: they do not change what is indexed.
CREATE SEQUENCE memory_change_seq;

-- next_change_seq hands out the next seq under a transaction-scoped advisory lock, so change
-- seqs become visible in commit order: a follower that has seen seq N has seen every committed
-- seq below N, and a gap is always a rolled-back transaction, never one still in flight.
-- Writers call it as the last statement before COMMIT to keep the lock short.
CREATE FUNCTION next_change_seq() RETURNS bigint LANGUAGE sql VOLATILE AS $$
    SELECT pg_advisory_xact_lock(7420001);
    SELECT nextval('memory_change_seq');
$$;

CREATE TABLE memories (
    id              uuid PRIMARY KEY,
    scope           text NOT NULL CHECK (scope IN ('project', 'global')),
    scope_key       text NOT NULL,
    kind            text NOT NULL DEFAULT 'fact'
                    CHECK (kind IN ('fact', 'decision', 'convention', 'gotcha', 'preference', 'error_pattern', 'reference')),
    text            text NOT NULL CHECK (text <> ''),
    -- sha256 of the whitespace-normalised, case-folded text: exact duplicates fold through the
    -- unique index below even when two hosts write them at the same instant.
    text_hash       bytea NOT NULL,
    importance      real NOT NULL DEFAULT 0.5 CHECK (importance >= 0 AND importance <= 1),
    confidence      real NOT NULL DEFAULT 0.8 CHECK (confidence >= 0 AND confidence <= 1),
    pinned          boolean NOT NULL DEFAULT false,
    hit_count       bigint NOT NULL DEFAULT 0,
    last_hit_at     timestamptz,
    agent           text NOT NULL DEFAULT '',
    session_id      text NOT NULL DEFAULT '',
    source          text NOT NULL DEFAULT '',
    embedder        text NOT NULL,
    -- Untyped on purpose: each embedder has its own dimensions and its own partial HNSW index
    -- over (embedding::vector(N)) WHERE embedder = '<name>', created by the host at boot.
    embedding       vector NOT NULL,
    -- deduped_count and merged_from (bounded) live here, as in seed 000.
    metadata        jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    archived_at     timestamptz,
    archived_reason text,
    seq             bigint NOT NULL,
    CONSTRAINT memories_scope_key_matches CHECK ((scope = 'global') = (scope_key = ''))
);

-- Keep vectors inline (fast exact scans) while still allowing wide dense vectors: rows are only
-- toasted past a full page, and the embedding is the last column moved out of line.
ALTER TABLE memories ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE memories SET (toast_tuple_target = 8160);
-- Free space on each page lets hit-count updates be HOT (heap-only): they touch no indexed
-- column, so with room on the page they never re-insert into the HNSW graph.
ALTER TABLE memories SET (fillfactor = 70);

CREATE UNIQUE INDEX memories_live_text ON memories (scope, scope_key, text_hash) WHERE archived_at IS NULL;
CREATE INDEX memories_scope_recent ON memories (scope, scope_key, created_at DESC, id DESC);
CREATE INDEX memories_seq ON memories (seq);
CREATE INDEX memories_archived ON memories (archived_at) WHERE archived_at IS NOT NULL;

-- The history ledger: every add, fold, update, archive and restore with before/after text, so
-- nothing is ever lost silently. No foreign key: history outlives a purged memory.
CREATE TABLE memory_history (
    id          bigserial PRIMARY KEY,
    memory_id   uuid NOT NULL,
    scope       text NOT NULL,
    scope_key   text NOT NULL,
    event       text NOT NULL CHECK (event IN ('add', 'fold', 'update', 'archive', 'restore', 'pin', 'unpin', 'merge', 'import')),
    before_text text,
    after_text  text,
    actor       text NOT NULL DEFAULT '',
    detail      jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX memory_history_memory ON memory_history (memory_id, id);
CREATE INDEX memory_history_scope ON memory_history (scope, scope_key, id);

-- Bearer tokens, stored as sha256 of the token (tokens are 256-bit random, so a fast hash is
-- enough). project_key binds a token to one project.
CREATE TABLE api_tokens (
    id           uuid PRIMARY KEY,
    name         text NOT NULL,
    token_hash   bytea NOT NULL UNIQUE,
    scopes       text[] NOT NULL,
    project_key  text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
