package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/core/store"
)

// VectorDimensions implements store.Store. The widths come from embedder_dimensions, which a
// trigger (migration 0003) fills with the first vector of each embedder and then holds every
// other vector of that embedder to.
func (s *Store) VectorDimensions(ctx context.Context) (map[string]int, error) {
	return queryMap[int](ctx, s.pool, "read embedder dimensions", `SELECT embedder, dimensions FROM embedder_dimensions`)
}

// registerDimensions records the width the embedder's plugin describes, so the first vector
// stored under that name (an import, say) cannot register another width. Vectors already
// stored with another width mean the plugin changed under its name: its index cannot be built,
// and saying so here is clearer than the index build failing on the first wrong row.
func (s *Store) registerDimensions(ctx context.Context, v store.Vector) error {
	var dims int
	var err error
	// Two hosts registering at once: the loser's ON CONFLICT waits for the winner, whose row
	// the loser's statement snapshot does not show. The second attempt sees it.
	for attempt := 0; attempt < 2; attempt++ {
		err = s.pool.QueryRow(ctx, `WITH ins AS (
				INSERT INTO embedder_dimensions (embedder, dimensions) VALUES ($1, $2)
				ON CONFLICT (embedder) DO NOTHING RETURNING dimensions)
			SELECT dimensions FROM ins UNION ALL SELECT dimensions FROM embedder_dimensions WHERE embedder = $1`,
			v.Embedder, v.Dimensions).Scan(&dims)
		if !errors.Is(err, pgx.ErrNoRows) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("register dimensions of embedder %s: %w", v.Embedder, err)
	}
	if dims != v.Dimensions {
		return fmt.Errorf("embedder %s describes %d dimensions, but the vectors stored under its name have %d: "+
			"a plugin that changes its vectors must change its name", v.Embedder, v.Dimensions, dims)
	}
	return nil
}
