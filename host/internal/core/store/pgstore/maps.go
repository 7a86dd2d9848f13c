package pgstore

import (
	"context"
	"fmt"

	"github.com/memhost/memhost/host/internal/core/store"
)

// PutMap stores a project's map, replacing the one it had.
func (s *Store) PutMap(ctx context.Context, m store.ProjectMap) (store.ProjectMap, error) {
	err := s.pool.QueryRow(ctx, `INSERT INTO project_maps (scope_key, map, summary, fingerprint, generated_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, now())
		ON CONFLICT (scope_key) DO UPDATE SET map = EXCLUDED.map, summary = EXCLUDED.summary,
			fingerprint = EXCLUDED.fingerprint, generated_at = EXCLUDED.generated_at, updated_at = now()
		RETURNING updated_at`, m.ScopeKey, m.Map, m.Summary, m.Fingerprint, m.GeneratedAt).Scan(&m.UpdatedAt)
	if err != nil {
		return m, fmt.Errorf("store map of %q: %w", m.ScopeKey, err)
	}
	return m, nil
}

// ProjectMap returns a project's map, or rules.ErrNotFound.
func (s *Store) ProjectMap(ctx context.Context, key string) (store.ProjectMap, error) {
	m := store.ProjectMap{ScopeKey: key}
	err := s.pool.QueryRow(ctx, `SELECT map, summary, fingerprint, generated_at, updated_at FROM project_maps WHERE scope_key = $1`, key).
		Scan(&m.Map, &m.Summary, &m.Fingerprint, &m.GeneratedAt, &m.UpdatedAt)
	if err != nil {
		return m, fmt.Errorf("read map of %q: %w", key, notFound(err))
	}
	return m, nil
}
