package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// healthTopHits is how many of the most-hit facts a health snapshot lists.
const healthTopHits = 5

// Health reads one project's health snapshot in one round trip; since is the start of "this
// week".
func (s *Store) Health(ctx context.Context, key string, since time.Time) (store.Health, error) {
	var h store.Health
	var b pgx.Batch
	b.Queue(`SELECT
			count(*) FILTER (WHERE `+factKinds+`),
			count(*) FILTER (WHERE `+factKinds+` AND created_at >= $2),
			count(*) FILTER (WHERE kind = 'journal'),
			count(*) FILTER (WHERE kind = 'journal' AND created_at >= $2),
			count(*) FILTER (WHERE `+factKinds+` AND last_retrieved_at IS NULL),
			max(updated_at) FILTER (WHERE kind = 'goal'),
			max(updated_at) FILTER (WHERE kind = 'plan')
		FROM memories WHERE scope = 'project' AND scope_key = $1 AND archived_at IS NULL`, key, since).
		QueryRow(func(row pgx.Row) error {
			return row.Scan(&h.Facts, &h.FactsSince, &h.Journal, &h.JournalSince, &h.NeverHit, &h.GoalUpdatedAt, &h.PlanUpdatedAt)
		})
	// One reason per kind of archive: "merged into <id>" and "conflict <id>" name a memory
	// each, and would list one line per survivor or conflict.
	b.Queue(`SELECT `+reasonGroupSQL+`, count(*) FROM memories
		WHERE scope = 'project' AND scope_key = $1 AND archived_at IS NOT NULL GROUP BY 1`, key).
		Query(func(rows pgx.Rows) error {
			h.ArchivedByReason = map[string]int64{}
			for rows.Next() {
				var reason string
				var n int64
				if err := rows.Scan(&reason, &n); err != nil {
					return err
				}
				h.ArchivedByReason[reason] = n
			}
			return rows.Err()
		})
	b.Queue(`SELECT count(*) FILTER (WHERE event = 'fold'), count(*) FILTER (WHERE event = 'fold' AND created_at >= $2),
			count(*) FILTER (WHERE event = 'merge'), count(*) FILTER (WHERE event = 'merge' AND created_at >= $2)
		FROM memory_history WHERE scope = 'project' AND scope_key = $1 AND event IN ('fold', 'merge')`, key, since).
		QueryRow(func(row pgx.Row) error { return row.Scan(&h.Folds, &h.FoldsSince, &h.Merges, &h.MergesSince) })
	b.Queue(`SELECT (SELECT count(*) FROM memories WHERE scope = 'project' AND scope_key = $1 AND archived_at IS NULL AND superseded_by IS NOT NULL),
			count(*), min(created_at) FROM memory_conflicts WHERE scope_key = $1 AND status = 'open'`, key).
		QueryRow(func(row pgx.Row) error { return row.Scan(&h.Superseded, &h.OpenConflicts, &h.OldestConflict) })
	b.Queue(`SELECT count(*), coalesce(sum(input_tokens + output_tokens), 0) FROM worker_calls WHERE started_at >= $1`, since).
		QueryRow(func(row pgx.Row) error { return row.Scan(&h.LLMCalls, &h.LLMTokens) })
	b.Queue(`SELECT count(*), min(created_at), (SELECT generated_at FROM project_maps WHERE scope_key = $1)
		FROM proposals WHERE scope_key = $1 AND status = 'pending'`, key).
		QueryRow(func(row pgx.Row) error { return row.Scan(&h.PendingProposals, &h.OldestPending, &h.MapGeneratedAt) })
	b.Queue(`SELECT `+memoryColumns+` FROM memories
		WHERE scope = 'project' AND scope_key = $1 AND archived_at IS NULL AND `+factKinds+` AND hit_count > 0
		ORDER BY hit_count DESC, id LIMIT $2`, key, healthTopHits).
		Query(func(rows pgx.Rows) error {
			var err error
			h.TopHit, err = collectMemories(rows)
			return err
		})
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return h, fmt.Errorf("read health of %q: %w", key, err)
	}
	return h, nil
}

// notFound maps pgx's no-rows error to rules.ErrNotFound.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return rules.ErrNotFound
	}
	return err
}
