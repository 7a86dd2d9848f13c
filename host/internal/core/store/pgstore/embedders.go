package pgstore

import (
	"context"
)

// EmbeddersWithVectors returns, sorted, the embedders that have at least one stored vector:
// the intent `auto` embedder tiering reads (dense vectors stored mean the dense tier was chosen
// and must not be dropped), what an embedder switch leaves behind and what switching back
// finds ready. Only embedders the host ever registered (embedder_dimensions, a handful) are
// probed, each with an EXISTS on memory_vectors_scope that stops at its first row.
func (s *Store) EmbeddersWithVectors(ctx context.Context) ([]string, error) {
	return queryValues[string](ctx, s.pool, "read the embedders with stored vectors", `SELECT d.embedder FROM embedder_dimensions d
		WHERE EXISTS (SELECT 1 FROM memory_vectors v WHERE v.embedder = d.embedder) ORDER BY d.embedder`)
}
