-- 0004_brain: the project brain. A project's goal, plan and session journal are rows of
-- memories with three layer kinds, so the active embedder embeds them, the lexical and ANN
-- indexes find them, the one ranker ranks them, the history ledger keeps every version and
-- archive/restore and export/import treat them like every other memory. Proposals (an agent's
-- suggested goal or plan, waiting for a human) and uploaded project maps get tables of their own.

-- Layer kinds: 'goal' and 'plan' (one live row each per project) and 'journal' (what a session
-- did). The fact kinds stay as they were.
ALTER TABLE memories DROP CONSTRAINT IF EXISTS memories_kind_check;
ALTER TABLE memories ADD CONSTRAINT memories_kind_check
    CHECK (kind IN ('fact', 'decision', 'convention', 'gotcha', 'preference', 'error_pattern', 'reference',
                    'goal', 'plan', 'journal'));

-- Layer rows belong to one project; there is no global goal.
ALTER TABLE memories ADD CONSTRAINT memories_layer_in_project
    CHECK (kind NOT IN ('goal', 'plan', 'journal') OR scope = 'project');

-- The exact-duplicate rule (one live row per text) is a rule about facts: two sessions may
-- journal the same words, and a goal may read like a fact without absorbing it. Queries that
-- rely on the index repeat its predicate literally (see pgstore.factKinds).
DROP INDEX IF EXISTS memories_live_text;
CREATE UNIQUE INDEX memories_live_text ON memories (scope, scope_key, text_hash)
    WHERE archived_at IS NULL AND kind NOT IN ('goal', 'plan', 'journal');

-- At most one live goal and one live plan per project, across every host.
CREATE UNIQUE INDEX memories_live_document ON memories (scope_key, kind)
    WHERE archived_at IS NULL AND kind IN ('goal', 'plan');

-- Journal listing and the banner's document lookups, without walking a project's facts.
CREATE INDEX memories_layer_recent ON memories (scope_key, kind, created_at DESC, id DESC)
    WHERE archived_at IS NULL AND kind IN ('goal', 'plan', 'journal');

-- The spawn banner's candidate pool: a project's live facts by importance, most recently
-- updated first. hit_count and last_hit_at stay out of every index, so hit updates stay HOT.
CREATE INDEX memories_spawn ON memories (scope, scope_key, importance DESC, updated_at DESC)
    WHERE archived_at IS NULL AND kind NOT IN ('goal', 'plan', 'journal');

-- The proposals inbox. An agent proposes a new goal or plan; a human approves (the document is
-- replaced, the old version stays in history) or rejects it (the proposal stays here). base_seq
-- is the change seq of the live document the proposal was made against (0: there was none); a
-- proposal whose base is no longer current is stale and is never applied.
CREATE TABLE proposals (
    id          uuid PRIMARY KEY,
    scope_key   text NOT NULL CHECK (scope_key <> ''),
    layer       text NOT NULL CHECK (layer IN ('goal', 'plan')),
    base_seq    bigint NOT NULL DEFAULT 0,
    text        text NOT NULL CHECK (text <> ''),
    reason      text NOT NULL DEFAULT '',
    agent       text NOT NULL DEFAULT '',
    session_id  text NOT NULL DEFAULT '',
    actor       text NOT NULL DEFAULT '',
    status      text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'approved', 'rejected', 'stale')),
    decided_by  text,
    decided_at  timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT proposals_decided CHECK (status NOT IN ('approved', 'rejected') OR decided_at IS NOT NULL)
);
CREATE INDEX proposals_inbox ON proposals (scope_key, created_at DESC, id DESC);
CREATE INDEX proposals_pending ON proposals (scope_key, layer) WHERE status = 'pending';

-- Project maps, computed where the project lives (the CLI, or the host when it can see the
-- directory) and uploaded: the map's JSON form (projectmap.FormatVersion), its fingerprint and
-- the compact summary the banner embeds, rendered once at upload instead of on every spawn.
CREATE TABLE project_maps (
    scope_key    text PRIMARY KEY CHECK (scope_key <> ''),
    map          jsonb NOT NULL,
    summary      text NOT NULL DEFAULT '',
    fingerprint  text NOT NULL DEFAULT '',
    generated_at timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL DEFAULT now()
);
