package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// SpawnSQL (exported for EXPLAIN tests) reads a project's banner material in one statement, each part through its own
// index: the documents and journal through memories_layer_recent, the newest facts through
// memories_scope_recent, the candidate pool through memories_spawn. part says which is which.
const SpawnSQL = `
(SELECT 'doc' AS part, ` + memoryColumns + ` FROM memories
	WHERE scope = 'project' AND scope_key = $1 AND ` + documentKinds + ` AND archived_at IS NULL)
UNION ALL
(SELECT 'journal', ` + memoryColumns + ` FROM memories
	WHERE scope = 'project' AND scope_key = $1 AND kind = 'journal' AND archived_at IS NULL
	ORDER BY created_at DESC, id DESC LIMIT $2)
UNION ALL
(SELECT 'recent', ` + memoryColumns + ` FROM memories
	WHERE scope = 'project' AND scope_key = $1 AND archived_at IS NULL AND ` + factKinds + `
	ORDER BY created_at DESC, id DESC LIMIT $3)
UNION ALL
(SELECT 'candidate', ` + memoryColumns + ` FROM memories
	WHERE scope = 'project' AND scope_key = $1 AND archived_at IS NULL AND ` + factKinds + `
	ORDER BY importance DESC, updated_at DESC LIMIT $4)`

// Spawn reads everything one project's spawn banner is built from in one round trip: its
// goal and plan, its newest journal entries, its newest facts, a candidate pool of facts by
// importance (most recently updated first among equals; the caller ranks them) and its map's
// summary. Nothing of another project or of the global scope is read.
func (s *Store) Spawn(ctx context.Context, q store.SpawnQuery) (store.SpawnRows, error) {
	var out store.SpawnRows
	var b pgx.Batch
	b.Queue(SpawnSQL, q.ScopeKey, q.Journal, q.Recent, q.Candidates).Query(func(rows pgx.Rows) error {
		for rows.Next() {
			var part string
			m, err := scanMemory(scanFirst{rows, &part})
			if err != nil {
				return err
			}
			switch {
			case part == "doc" && m.Kind == store.KindGoal:
				out.Goal = &m
			case part == "doc":
				out.Plan = &m
			case part == "journal":
				out.Journal = append(out.Journal, m)
			case part == "recent":
				out.Recent = append(out.Recent, m)
			default:
				out.Candidates = append(out.Candidates, m)
			}
		}
		return rows.Err()
	})
	b.Queue(`SELECT summary, fingerprint, generated_at, updated_at FROM project_maps WHERE scope_key = $1`, q.ScopeKey).
		QueryRow(func(row pgx.Row) error {
			pm := store.ProjectMap{ScopeKey: q.ScopeKey}
			err := row.Scan(&pm.Summary, &pm.Fingerprint, &pm.GeneratedAt, &pm.UpdatedAt)
			if errors.Is(err, pgx.ErrNoRows) {
				return nil
			}
			out.Map = &pm
			return err
		})
	if q.Conflicts > 0 {
		b.Queue(`SELECT `+conflictColumns+`, count(*) OVER () FROM memory_conflicts WHERE scope_key = $1 AND status = 'open'
			ORDER BY CASE severity WHEN 'high' THEN 0 WHEN 'medium' THEN 1 ELSE 2 END, created_at DESC, id LIMIT $2`, q.ScopeKey, q.Conflicts).
			Query(func(rows pgx.Rows) error {
				for rows.Next() {
					c, err := scanConflict(scanLast{rows, &out.OpenConflicts})
					if err != nil {
						return err
					}
					out.Conflicts = append(out.Conflicts, c)
				}
				return rows.Err()
			})
	}
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return store.SpawnRows{}, fmt.Errorf("read banner material of %q: %w", q.ScopeKey, err)
	}
	return out, nil
}

// scanFirst lets scanMemory read the memory columns while a leading column lands in first.
type scanFirst struct {
	rows  pgx.Rows
	first any
}

func (t scanFirst) Scan(dest ...any) error { return t.rows.Scan(append([]any{t.first}, dest...)...) }

// scanLast lets a scan read its columns while a trailing column lands in last.
type scanLast struct {
	rows pgx.Rows
	last any
}

func (t scanLast) Scan(dest ...any) error { return t.rows.Scan(append(dest, t.last)...) }
