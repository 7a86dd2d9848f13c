package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/store"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
)

// dormantFact is the dormancy rule, one copy for the scan and the re-check under the row
// lock: a live, unpinned, never-retrieved fact of a project the operator archived, or whose
// map's HEAD commit is older than @cutoff (a project without a map gives no signal).
const dormantFact = `memories.archived_at IS NULL AND NOT memories.pinned AND memories.last_retrieved_at IS NULL
	AND memories.kind NOT IN ('goal', 'plan', 'journal') AND memories.scope = 'project'
	AND (EXISTS (SELECT 1 FROM project_states ps WHERE ps.scope_key = memories.scope_key AND ps.status = 'archived')
		OR EXISTS (SELECT 1 FROM project_maps pm WHERE pm.scope_key = memories.scope_key
			AND (pm.map->'git'->'head'->>'time')::timestamptz < @cutoff))`

// reasonDormant is the archive reason dormancy sets and unarchiving restores.
const reasonDormant = "dormant"

// DormantFacts returns up to limit dormant facts (dormantFact), oldest first; project "" means
// every project.
func (s *Store) DormantFacts(ctx context.Context, cutoff time.Time, project string, limit int) ([]uuid.UUID, error) {
	return s.ruleCandidates(ctx, "find dormant facts", dormantFact, "created_at", cutoff, project, limit)
}

// ArchiveDormant archives id with reason "dormant" if it still is a dormant fact under its row
// lock; changed says whether it was archived.
func (s *Store) ArchiveDormant(ctx context.Context, id uuid.UUID, cutoff time.Time, actor string) (changed bool, err error) {
	_, changed, err = s.setArchived(ctx, id, true, reasonDormant, actor, dormantFact, pgx.NamedArgs{"cutoff": cutoff})
	return changed, err
}

// SetProjectArchived records the operator's archive (or unarchive) of a project and runs also
// in the same transaction (the maintenance event it causes), so both happen or neither.
func (s *Store) SetProjectArchived(ctx context.Context, p store.ProjectState, also func(pgx.Tx) error) error {
	status := map[bool]string{true: "archived", false: "active"}[p.Archived]
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO project_states (scope_key, status, changed_at, changed_by) VALUES ($1, $2, now(), $3)
			ON CONFLICT (scope_key) DO UPDATE SET status = EXCLUDED.status, changed_at = EXCLUDED.changed_at, changed_by = EXCLUDED.changed_by`,
			p.Key, status, p.Actor); err != nil {
			return fmt.Errorf("set project %q %s: %w", p.Key, status, err)
		}
		if also == nil {
			return nil
		}
		return also(tx)
	})
}

// ProjectArchived reports whether the operator archived the project.
func (s *Store) ProjectArchived(ctx context.Context, key string) (bool, error) {
	var archived bool
	err := s.pool.QueryRow(ctx, `SELECT status = 'archived' FROM project_states WHERE scope_key = $1`, key).Scan(&archived)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	return archived, err
}

// RestoreDormant restores the project's memories dormancy archived (reason "dormant"), each in
// its own transaction; one whose text a live memory now has stays archived. It returns the
// restored ids.
func (s *Store) RestoreDormant(ctx context.Context, key, actor string) ([]uuid.UUID, error) {
	ids, err := queryValues[uuid.UUID](ctx, s.pool, fmt.Sprintf("find dormant memories of %q", key), `SELECT id FROM memories WHERE scope = 'project' AND scope_key = $1
		AND archived_at IS NOT NULL AND archived_reason = $2 ORDER BY id`, key, reasonDormant)
	if err != nil {
		return nil, err
	}
	var restored []uuid.UUID
	for _, id := range ids {
		_, changed, err := s.setArchived(ctx, id, false, "", actor, `memories.archived_reason = @reason`, pgx.NamedArgs{"reason": reasonDormant})
		if errors.Is(err, rules.ErrConflict) {
			continue
		}
		if err != nil {
			return restored, err
		}
		if changed {
			restored = append(restored, id)
		}
	}
	return restored, nil
}
