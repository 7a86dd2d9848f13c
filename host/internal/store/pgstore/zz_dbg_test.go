package pgstore_test

import (
	"context"
	"testing"

	"github.com/memhost/memhost/host/internal/store"
	"github.com/memhost/memhost/host/internal/store/pgstore"
	"github.com/memhost/memhost/host/internal/store/storetest"
)

func TestZZDebug(t *testing.T) {
	ctx := context.Background()
	b := setupGraphs(t)
	large := store.Project("large")
	b.seed(t, large, graphMin)
	_, err := b.store.IndexScopes(ctx)
	t.Log(err, annIndexes(t, b.pool), pgstore.GraphName(storetest.Embedder, large))
	var x any
	_ = b.pool.QueryRow(ctx, `SELECT to_regclass($1)::text`, pgstore.GraphName(storetest.Embedder, large)).Scan(&x)
	t.Log(x)
	_ = b.pool.QueryRow(ctx, `SELECT current_setting('search_path')`).Scan(&x)
	t.Log(x)
}
