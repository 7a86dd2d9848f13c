package pgstore

import (
	"context"

	"github.com/memhost/memhost/host/internal/core/store"
)

// NearestSettingsSQL exposes the settings Nearest pipelines before its query.
var NearestSettingsSQL = nearestSettingsSQL

// NearestGraphNames exposes the graphs Nearest sizes its walk by.
func NearestGraphNames(s *Store, q store.VectorQuery) []string { return s.graphNames(q) }

// ProjectsSQL exposes the projects listing's query, whose plan a test checks.
const ProjectsSQL = projectsSQL

// WriteSetting reads a run-time setting inside a write's open transaction (after its first
// call on tx), as the write's own statements see it.
func WriteSetting(ctx context.Context, tx store.ScopeTx, name string) (string, error) {
	var v string
	err := tx.(*scopeTx).conn.QueryRow(ctx, `SELECT current_setting($1)`, name).Scan(&v)
	return v, err
}
