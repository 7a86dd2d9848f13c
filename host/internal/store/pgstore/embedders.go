package pgstore

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// EmbeddersWithVectors names the embedders that hold stored vectors, sorted: what an embedder
// switch would leave behind, and what switching back finds ready.
func (s *Store) EmbeddersWithVectors(ctx context.Context) ([]string, error) {
	// One probe of memory_vectors_scope per registered embedder, not a scan of the vectors.
	rows, err := s.pool.Query(ctx, `SELECT embedder FROM embedder_dimensions d
		WHERE EXISTS (SELECT 1 FROM memory_vectors v WHERE v.embedder = d.embedder) ORDER BY embedder`)
	if err != nil {
		return nil, fmt.Errorf("embedders with vectors: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("embedders with vectors: %w", err)
	}
	return names, nil
}
