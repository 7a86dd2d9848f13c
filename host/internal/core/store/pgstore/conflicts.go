package pgstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

const conflictColumns = `id, scope_key, memory_a, memory_b, text_a, text_b, evidence, severity, status, created_at, decided_at, decided_by, archived`

func scanConflict(row pgx.Row) (store.Conflict, error) {
	var c store.Conflict
	var status string
	err := row.Scan(&c.ID, &c.ScopeKey, &c.MemoryA, &c.MemoryB, &c.TextA, &c.TextB, &c.Evidence, &c.Severity, &status,
		&c.CreatedAt, &c.DecidedAt, &c.DecidedBy, &c.Archived)
	if errors.Is(err, pgx.ErrNoRows) {
		return c, rules.ErrNotFound
	}
	c.Status = store.ConflictStatus(status)
	return c, err
}

// FileConflict adds an open conflict to its project's inbox unless the pair was flagged
// before (open, accepted or dismissed: a dismissed pair is never flagged again); filed says
// whether it was added.
func (s *Store) FileConflict(ctx context.Context, c store.Conflict) (filed bool, err error) {
	if c.ID == uuid.Nil {
		c.ID = uuid.Must(uuid.NewV7())
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO memory_conflicts (id, scope_key, memory_a, memory_b, pair_key, text_a, text_b, evidence, severity, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) ON CONFLICT (scope_key, pair_key) DO NOTHING`,
		c.ID, c.ScopeKey, c.MemoryA, c.MemoryB, store.PairKey(c.MemoryA, c.MemoryB), c.TextA, c.TextB, c.Evidence, c.Severity, c.CreatedAt)
	if err != nil {
		return false, fmt.Errorf("file conflict: %w", err)
	}
	return tag.RowsAffected() == 1, nil
}

// ConflictPairs returns the pair keys of every conflict a project ever had.
func (s *Store) ConflictPairs(ctx context.Context, key string) (map[string]bool, error) {
	return querySet(ctx, s.pool, "read conflict pairs", `SELECT pair_key FROM memory_conflicts WHERE scope_key = $1`, key)
}

// Conflict returns one of a project's conflicts; another project's id is rules.ErrNotFound.
func (s *Store) Conflict(ctx context.Context, key string, id uuid.UUID) (store.Conflict, error) {
	c, err := scanConflict(s.pool.QueryRow(ctx, `SELECT `+conflictColumns+` FROM memory_conflicts WHERE id = $1 AND scope_key = $2`, id, key))
	if err != nil {
		return c, fmt.Errorf("read conflict %s: %w", id, err)
	}
	return c, nil
}

// Conflicts lists a project's conflicts, newest first.
func (s *Store) Conflicts(ctx context.Context, q store.ConflictQuery) ([]store.Conflict, error) {
	statuses := make([]string, len(q.Statuses))
	for i, st := range q.Statuses {
		statuses[i] = string(st)
	}
	return queryRows(ctx, s.pool, "list conflicts", scanConflict, `SELECT `+conflictColumns+` FROM memory_conflicts WHERE scope_key = $1
		AND (cardinality($2::text[]) = 0 OR status = ANY($2)) ORDER BY created_at DESC, id DESC LIMIT $3`, q.ScopeKey, statuses, max(q.Limit, 1))
}

// OpenConflicts counts a project's open conflicts and says when the oldest was flagged.
func (s *Store) OpenConflicts(ctx context.Context, key string) (n int64, oldest *time.Time, err error) {
	err = s.pool.QueryRow(ctx, `SELECT count(*), min(created_at) FROM memory_conflicts WHERE scope_key = $1 AND status = 'open'`, key).Scan(&n, &oldest)
	if err != nil {
		return 0, nil, fmt.Errorf("count open conflicts: %w", err)
	}
	return n, oldest, nil
}

// ConflictIDsEndingWith returns up to limit ids of a project's conflicts whose hex digits end
// with digits: how a short id the inbox shows is read back.
func (s *Store) ConflictIDsEndingWith(ctx context.Context, key, digits string, limit int) ([]uuid.UUID, error) {
	return queryValues[uuid.UUID](ctx, s.pool, "conflict ids by suffix", `SELECT id FROM memory_conflicts WHERE scope_key = $1 AND replace(id::text, '-', '') LIKE '%' || $2 LIMIT $3`, key, digits, limit)
}

// DecideConflict accepts or dismisses an open conflict, recording who and, on acceptance,
// which memory was archived; a decided one is store.ErrConflictDecided.
func (s *Store) DecideConflict(ctx context.Context, d store.ConflictDecision) (store.Conflict, error) {
	var out store.Conflict
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		c, err := scanConflict(tx.QueryRow(ctx, `SELECT `+conflictColumns+` FROM memory_conflicts WHERE id = $1 AND scope_key = $2 FOR UPDATE`, d.ID, d.ScopeKey))
		if err != nil {
			return err
		}
		if c.Status != store.ConflictOpen {
			out = c
			return store.ErrConflictDecided
		}
		out, err = scanConflict(tx.QueryRow(ctx, `UPDATE memory_conflicts SET status = $2, decided_at = now(), decided_by = $3, archived = $4
			WHERE id = $1 RETURNING `+conflictColumns, d.ID, string(d.Status), d.Actor, d.Archived))
		return err
	})
	if err != nil {
		return out, fmt.Errorf("decide conflict %s: %w", d.ID, err)
	}
	return out, nil
}

// Supersede marks older as superseded by newer (both live facts of one scope), with an update
// row in older's history; it is a no-op when already so. The link keeps older live: the
// ranker puts it below newer and surfaces show it as superseded.
func (s *Store) Supersede(ctx context.Context, p store.SupersedeParams) (store.Memory, bool, error) {
	older, newer := p.Older, p.Newer
	var out store.Memory
	var changed bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		m, err := lockRow(ctx, tx, older)
		if err != nil {
			return err
		}
		var ok bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM memories WHERE id = $1 AND scope = $2 AND scope_key = $3 AND archived_at IS NULL)`,
			newer, string(m.Scope), m.ScopeKey).Scan(&ok); err != nil {
			return err
		}
		if m.Archived() || !ok || (m.SupersededBy != nil && *m.SupersededBy == newer) {
			out = m
			return nil
		}
		d := map[string]any{"superseded_by": newer.String()}
		for k, v := range p.Detail {
			d[k] = v
		}
		if err := appendHistory(ctx, tx, m, store.EventUpdate, &m.Text, &m.Text, p.Actor, d, time.Now().UTC()); err != nil {
			return err
		}
		changed = true
		out, err = scanMemory(tx.QueryRow(ctx, `UPDATE memories SET superseded_by = $2, updated_at = now(), seq = next_change_seq() WHERE id = $1 RETURNING `+memoryColumns, older, newer))
		return err
	})
	if err != nil {
		return out, false, fmt.Errorf("supersede %s: %w", older, err)
	}
	return out, changed, nil
}

// StatementsFor returns what the conflicts job shows the chain of a project: its live goal and
// plan, its top facts not already superseded (pinned, then most important and used, then
// newest) and its latest journal entries.
func (s *Store) StatementsFor(ctx context.Context, q store.StatementsQuery) ([]store.Memory, error) {
	rows, err := s.pool.Query(ctx, `(SELECT `+memoryColumns+` FROM memories WHERE scope = 'project' AND scope_key = $1
			AND archived_at IS NULL AND `+documentKinds+` ORDER BY kind)
		UNION ALL
		(SELECT `+memoryColumns+` FROM memories WHERE scope = 'project' AND scope_key = $1 AND archived_at IS NULL
			AND `+factKinds+` AND superseded_by IS NULL ORDER BY pinned DESC, importance DESC, hit_count DESC, updated_at DESC, id LIMIT $2)
		UNION ALL
		(SELECT `+memoryColumns+` FROM memories WHERE scope = 'project' AND scope_key = $1 AND archived_at IS NULL
			AND kind = 'journal' ORDER BY created_at DESC, id LIMIT $3)`, q.ScopeKey, q.Facts, q.Journal)
	if err != nil {
		return nil, fmt.Errorf("read statements of %q: %w", q.ScopeKey, err)
	}
	return collectMemories(rows)
}

// Unsupersede undoes a supersession the conflicts job found: id is no longer marked superseded
// (an update row in its history says so), and the pair is recorded as a dismissed conflict,
// so the job never finds it again. changed is false when id was not superseded.
func (s *Store) Unsupersede(ctx context.Context, id uuid.UUID, actor string) (store.Memory, bool, error) {
	var out store.Memory
	var changed bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		m, err := lockRow(ctx, tx, id)
		if err != nil {
			return err
		}
		out = m
		if m.SupersededBy == nil {
			return nil
		}
		newer := *m.SupersededBy
		now := time.Now().UTC()
		if err := appendHistory(ctx, tx, m, store.EventUpdate, &m.Text, &m.Text, actor, map[string]any{"unsuperseded": newer.String()}, now); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO memory_conflicts (id, scope_key, memory_a, memory_b, pair_key, text_a, text_b, evidence, severity,
				status, created_at, decided_at, decided_by)
			SELECT $1, $2, $3, $4, $5, $6, coalesce((SELECT text FROM memories WHERE id = $4), ''), 'a supersession undone', 'low', 'dismissed', $7, $7, $8
			ON CONFLICT (scope_key, pair_key) DO UPDATE SET status = 'dismissed', decided_at = EXCLUDED.decided_at, decided_by = EXCLUDED.decided_by`,
			uuid.Must(uuid.NewV7()), m.ScopeKey, m.ID, newer, store.PairKey(m.ID, newer), m.Text, now, actor); err != nil {
			return fmt.Errorf("record the pair: %w", err)
		}
		changed = true
		out, err = scanMemory(tx.QueryRow(ctx, `UPDATE memories SET superseded_by = NULL, updated_at = $2, seq = next_change_seq() WHERE id = $1 RETURNING `+memoryColumns, id, now))
		return err
	})
	if err != nil {
		return out, false, fmt.Errorf("unsupersede %s: %w", id, err)
	}
	return out, changed, nil
}
