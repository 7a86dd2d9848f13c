-- 0009_maintenance: what the maintenance jobs need (see docs/maintenance.md).
--
-- last_retrieved_at is when a memory was last returned by a search or read with get. It is not
-- a use (hit_count feeds ranking and only a get raises it): it only tells the staleness job a
-- memory was ever wanted. A banner showing a memory does not set it. It is written off the
-- search path in batches and is in no index, so its updates stay HOT. A memory already read
-- (last_hit_at) counts as retrieved then.
ALTER TABLE memories ADD COLUMN IF NOT EXISTS last_retrieved_at timestamptz;
UPDATE memories SET last_retrieved_at = last_hit_at WHERE last_retrieved_at IS NULL AND last_hit_at IS NOT NULL;

-- One row per maintenance run, periodic or by hand: what `memhost maintenance status` reports.
-- A periodic run claims its window (job, window_start) first, so whichever host River's leader
-- election picks, a window runs at most once even across a leader change.
CREATE TABLE IF NOT EXISTS maintenance_runs (
    id            bigserial PRIMARY KEY,
    job           text NOT NULL,
    trigger       text NOT NULL CHECK (trigger IN ('periodic', 'manual', 'event')),
    window_start  timestamptz,
    project       text NOT NULL DEFAULT '',
    dry_run       boolean NOT NULL DEFAULT false,
    host          text NOT NULL,
    started_at    timestamptz NOT NULL,
    finished_at   timestamptz,
    outcome       text NOT NULL DEFAULT 'running' CHECK (outcome IN ('running', 'ok', 'partial', 'failed')),
    error         text NOT NULL DEFAULT '',
    examined      bigint NOT NULL DEFAULT 0,
    changed       bigint NOT NULL DEFAULT 0,
    llm_calls     bigint NOT NULL DEFAULT 0,
    tokens        bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX IF NOT EXISTS maintenance_runs_window ON maintenance_runs (job, window_start) WHERE trigger = 'periodic';
CREATE INDEX IF NOT EXISTS maintenance_runs_job ON maintenance_runs (job, id DESC);

-- Purge hard-deletes archived memories past the grace window. Their ledger keeps answering:
-- the texts in it are erased and a 'purge' row (who, when, why, the text's sha256) ends it.
ALTER TABLE memory_history DROP CONSTRAINT IF EXISTS memory_history_event_check;
ALTER TABLE memory_history ADD CONSTRAINT memory_history_event_check
    CHECK (event IN ('add', 'fold', 'update', 'archive', 'restore', 'pin', 'unpin', 'merge', 'import', 'purge'));

-- The change feed reads memories by seq, where a purged row no longer is: each purge leaves a
-- tombstone here with its own seq, so every host's in-process indexes drop the row.
CREATE TABLE IF NOT EXISTS memory_tombstones (
    seq        bigint PRIMARY KEY,
    id         uuid NOT NULL,
    scope      text NOT NULL,
    scope_key  text NOT NULL,
    kind       text NOT NULL,
    purged_at  timestamptz NOT NULL
);

-- A project's lifecycle: an operator archives a finished project (`memhost project archive`),
-- and the dormancy job then archives its never-retrieved facts; unarchiving restores them. A
-- project with no row is active.
CREATE TABLE IF NOT EXISTS project_states (
    scope_key   text PRIMARY KEY CHECK (scope_key <> ''),
    status      text NOT NULL CHECK (status IN ('active', 'archived')),
    changed_at  timestamptz NOT NULL,
    changed_by  text NOT NULL DEFAULT ''
);
