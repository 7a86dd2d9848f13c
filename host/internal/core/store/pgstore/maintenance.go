package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// StartRun records a run as running and returns its id. A periodic run claims its window:
// when another host already ran (or is running) the same job for the same window, claimed is
// false and nothing is recorded. First, the runs no host works on any more are marked
// abandoned (AbandonRuns with live), so a window whose runner died is claimed again.
func (s *Store) StartRun(ctx context.Context, r store.MaintenanceRun, live store.LiveRuns) (id int64, claimed bool, err error) {
	if _, err := s.AbandonRuns(ctx, live, r.StartedAt); err != nil {
		return 0, false, err
	}
	err = s.pool.QueryRow(ctx, `INSERT INTO maintenance_runs (job, trigger, window_start, project, dry_run, host, started_at, heartbeat_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
		ON CONFLICT (job, window_start) WHERE trigger = 'periodic' AND outcome <> 'abandoned' DO NOTHING RETURNING id`,
		r.Job, r.Trigger, r.WindowStart, r.Project, r.DryRun, r.Host, r.StartedAt).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("record maintenance run: %w", err)
	}
	return id, true, nil
}

// Heartbeat renews a running run's lease: its host still works on it at at.
func (s *Store) Heartbeat(ctx context.Context, id int64, at time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE maintenance_runs SET heartbeat_at = $2 WHERE id = $1 AND outcome = 'running'`, id, at); err != nil {
		return fmt.Errorf("renew the maintenance run's lease: %w", err)
	}
	return nil
}

// AbandonRuns marks abandoned, finished at at, every running run that live does not hold
// live: its host was killed or lost the database mid-run and will never record an outcome.
// It returns how many it marked.
func (s *Store) AbandonRuns(ctx context.Context, live store.LiveRuns, at time.Time) (int64, error) {
	active := live.Active
	if active == nil {
		active = []int64{}
	}
	tag, err := s.pool.Exec(ctx, `UPDATE maintenance_runs SET outcome = 'abandoned', finished_at = $4,
			error = 'abandoned: its host (' || host || ') stopped working on it (killed, or cut off from the database)'
		WHERE outcome = 'running' AND (heartbeat_at < $1 OR (host = $2 AND NOT (id = ANY($3))))`, live.Since, live.Host, active, at)
	if err != nil {
		return 0, fmt.Errorf("mark abandoned maintenance runs: %w", err)
	}
	return tag.RowsAffected(), nil
}

// FinishRun records a run's outcome and counts. A run marked abandoned meanwhile (its lease
// lapsed while it still ran) keeps that outcome, since its window may have been claimed again;
// its counts are recorded.
func (s *Store) FinishRun(ctx context.Context, r store.MaintenanceRun) error {
	_, err := s.pool.Exec(ctx, `UPDATE maintenance_runs SET finished_at = $2,
		outcome = CASE WHEN outcome = 'abandoned' THEN outcome ELSE $3 END,
		error = CASE WHEN outcome = 'abandoned' THEN error ELSE $4 END,
		examined = $5, changed = $6, llm_calls = $7, tokens = $8 WHERE id = $1`,
		r.ID, r.FinishedAt, r.Outcome, r.Error, r.Examined, r.Changed, r.LLMCalls, r.Tokens)
	if err != nil {
		return fmt.Errorf("record maintenance outcome: %w", err)
	}
	return nil
}

// LastRuns returns each job's latest run, keyed by job: of every run when project is "",
// else of the runs over that project alone.
func (s *Store) LastRuns(ctx context.Context, project string) (map[string]store.MaintenanceRun, error) {
	rows, err := s.pool.Query(ctx, `SELECT DISTINCT ON (job) id, job, trigger, window_start, project, dry_run, host,
		started_at, finished_at, outcome, error, examined, changed, llm_calls, tokens
		FROM maintenance_runs WHERE $1 = '' OR project = $1 ORDER BY job, id DESC`, project)
	if err != nil {
		return nil, fmt.Errorf("read maintenance runs: %w", err)
	}
	defer rows.Close()
	out := map[string]store.MaintenanceRun{}
	for rows.Next() {
		var r store.MaintenanceRun
		if err := rows.Scan(&r.ID, &r.Job, &r.Trigger, &r.WindowStart, &r.Project, &r.DryRun, &r.Host,
			&r.StartedAt, &r.FinishedAt, &r.Outcome, &r.Error, &r.Examined, &r.Changed, &r.LLMCalls, &r.Tokens); err != nil {
			return nil, fmt.Errorf("read maintenance runs: %w", err)
		}
		out[r.Job] = r
	}
	return out, rows.Err()
}

// staleFact is the staleness rule, one copy for the scan and the re-check under the row lock:
// a live, unpinned fact (not a goal, plan or journal entry) that no search or get ever
// returned, created before @cutoff.
const staleFact = `archived_at IS NULL AND NOT pinned AND last_retrieved_at IS NULL
	AND kind NOT IN ('goal', 'plan', 'journal') AND created_at < @cutoff`

// StaleFacts returns up to limit stale facts (staleFact), oldest first; project "" means every
// scope, else that project's facts only.
func (s *Store) StaleFacts(ctx context.Context, cutoff time.Time, project string, limit int) ([]uuid.UUID, error) {
	return s.ruleCandidates(ctx, "find stale facts", staleFact, "created_at", cutoff, project, limit)
}

// ArchiveStale archives id with reason "stale" if it is still a stale fact (staleFact) under
// its row lock, so a fact retrieved or pinned since the scan is kept; changed says whether
// it was archived.
func (s *Store) ArchiveStale(ctx context.Context, id uuid.UUID, cutoff time.Time, actor string) (changed bool, err error) {
	_, changed, err = s.setArchived(ctx, id, true, "stale", actor, staleFact, pgx.NamedArgs{"cutoff": cutoff})
	return changed, err
}

// LastWindows returns, per job, the start of the latest window a periodic run claimed and did
// not abandon.
func (s *Store) LastWindows(ctx context.Context) (map[string]time.Time, error) {
	return queryMap[time.Time](ctx, s.pool, "read maintenance windows", `SELECT job, max(window_start) FROM maintenance_runs WHERE trigger = 'periodic'
		AND outcome <> 'abandoned' GROUP BY job`)
}

// oldJournal is the journal prune rule: a live, unpinned journal entry created before @cutoff
// that no open conflict references (the operator deciding it needs to read the entry).
const oldJournal = `archived_at IS NULL AND NOT pinned AND kind = 'journal' AND created_at < @cutoff
	AND NOT EXISTS (SELECT 1 FROM memory_conflicts c WHERE c.status = 'open' AND memories.id IN (c.memory_a, c.memory_b))`

// OldJournal returns up to limit journal entries older than cutoff (oldJournal), oldest first;
// project "" means every project.
func (s *Store) OldJournal(ctx context.Context, cutoff time.Time, project string, limit int) ([]uuid.UUID, error) {
	return s.ruleCandidates(ctx, "find old journal entries", oldJournal, "created_at", cutoff, project, limit)
}

// ArchiveOldJournal archives id with reason "journal prune" if it still is an old journal
// entry under its row lock; changed says whether it was archived.
func (s *Store) ArchiveOldJournal(ctx context.Context, id uuid.UUID, cutoff time.Time, actor string) (changed bool, err error) {
	_, changed, err = s.setArchived(ctx, id, true, "journal prune", actor, oldJournal, pgx.NamedArgs{"cutoff": cutoff})
	return changed, err
}
