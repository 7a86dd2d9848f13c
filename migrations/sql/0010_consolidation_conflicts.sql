-- 0010_consolidation_conflicts: what the consolidation and conflicts jobs need (see
-- docs/maintenance.md, "Consolidation" and "Supersession and conflicts").
--
-- superseded_by links a fact the conflicts job found clearly replaced ("we moved from npm to
-- pnpm") to its successor. The fact stays live and searchable, ranked below its successor when
-- both are in a result and shown as superseded; its history records the link. No foreign key:
-- a purged successor leaves a link the ranker never meets (it only reorders what it ranks).
ALTER TABLE memories ADD COLUMN IF NOT EXISTS superseded_by uuid;

-- The conflicts inbox: pairs of a project's memories the conflicts job found contradicting,
-- with its evidence and severity, for an operator to accept (optionally archiving one side) or
-- dismiss. pair_key is the two ids sorted, and one row per pair ever: a dismissed pair is never
-- flagged again, an open one is not flagged twice. The texts are kept as they were when
-- flagged, so the inbox reads the same after either side changes.
CREATE TABLE IF NOT EXISTS memory_conflicts (
    id           uuid PRIMARY KEY,
    scope_key    text NOT NULL CHECK (scope_key <> ''),
    memory_a     uuid NOT NULL,
    memory_b     uuid NOT NULL,
    pair_key     text NOT NULL,
    text_a       text NOT NULL,
    text_b       text NOT NULL,
    evidence     text NOT NULL DEFAULT '',
    severity     text NOT NULL CHECK (severity IN ('low', 'medium', 'high')),
    status       text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'accepted', 'dismissed')),
    created_at   timestamptz NOT NULL,
    decided_at   timestamptz,
    decided_by   text NOT NULL DEFAULT '',
    archived     uuid
);
CREATE UNIQUE INDEX IF NOT EXISTS memory_conflicts_pair ON memory_conflicts (scope_key, pair_key);
CREATE INDEX IF NOT EXISTS memory_conflicts_open ON memory_conflicts (scope_key, created_at) WHERE status = 'open';
