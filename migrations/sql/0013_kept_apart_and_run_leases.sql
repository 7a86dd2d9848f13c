-- 0013_kept_apart_and_run_leases: an operator's unmerge sticks, and a run whose host died is
-- seen as such (see docs/maintenance.md, "consolidate" and "Seeing and running jobs").
--
-- memory_kept_apart records the pairs of memories an operator kept apart: `memhost memory
-- unmerge` undoes a merge and records every pair of the set it restores (the survivor and
-- each memory it gives back, and those among themselves), as a dismissed conflict records a
-- pair the conflicts job must not flag again. Consolidation never puts a recorded pair in one
-- cluster. pair_key is the two ids sorted (store.PairKey); no foreign key: a purged memory
-- leaves a pair nothing meets again.
CREATE TABLE IF NOT EXISTS memory_kept_apart (
    scope_key   text NOT NULL,
    pair_key    text NOT NULL,
    memory_a    uuid NOT NULL,
    memory_b    uuid NOT NULL,
    decided_at  timestamptz NOT NULL,
    decided_by  text NOT NULL DEFAULT '',
    PRIMARY KEY (scope_key, pair_key)
);

-- A running run renews heartbeat_at while its host works on it. A run whose heartbeat is older
-- than its lease (maintenance.RunLease) lost its host (killed, or cut off by a database outage):
-- the next look at maintenance_runs marks it 'abandoned', and a periodic window claimed by an
-- abandoned run may be claimed again, so the window is retried.
ALTER TABLE maintenance_runs ADD COLUMN IF NOT EXISTS heartbeat_at timestamptz;
UPDATE maintenance_runs SET heartbeat_at = started_at WHERE heartbeat_at IS NULL;
ALTER TABLE maintenance_runs DROP CONSTRAINT IF EXISTS maintenance_runs_outcome_check;
ALTER TABLE maintenance_runs ADD CONSTRAINT maintenance_runs_outcome_check
    CHECK (outcome IN ('running', 'ok', 'partial', 'failed', 'abandoned'));
DROP INDEX IF EXISTS maintenance_runs_window;
CREATE UNIQUE INDEX IF NOT EXISTS maintenance_runs_window_claim ON maintenance_runs (job, window_start)
    WHERE trigger = 'periodic' AND outcome <> 'abandoned';
CREATE INDEX IF NOT EXISTS maintenance_runs_running ON maintenance_runs (heartbeat_at) WHERE outcome = 'running';
