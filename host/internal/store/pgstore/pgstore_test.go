package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/store"
	"github.com/memhost/memhost/host/internal/store/pgstore"
	"github.com/memhost/memhost/host/internal/store/storetest"
	"github.com/memhost/memhost/host/internal/testdb"
)

func TestConformance(t *testing.T) {
	t.Parallel()
	storetest.Run(t, func(t *testing.T) store.Store {
		pool, _ := testdb.Migrated(t)
		return pgstore.New(pool)
	})
}

// TestANNIndexIsUsed asserts the plan: the partial HNSW index answers a project-filtered query
// (opendray's index was never used by its planner; ours is checked here).
func TestANNIndexIsUsed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool)
	require.NoError(t, s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))
	r := rand.New(rand.NewPCG(1, 2))
	var recs []store.ExportRecord
	for i := range 3000 {
		w := storetest.NewWrite(fmt.Sprintf("project-%d", i%3), fmt.Sprintf("fact %d", i), storetest.RandomVec(r))
		recs = append(recs, store.ExportRecord{Memory: store.Memory{ID: w.ID, Scope: w.Scope, ScopeKey: w.ScopeKey, Kind: w.Kind, Text: w.Text, Importance: 0.5, Confidence: 0.5}, Vector: w.Vector})
	}
	_, err := s.Import(ctx, recs)
	require.NoError(t, err)
	c, err := s.Counts(ctx)
	require.NoError(t, err)
	require.EqualValues(t, len(recs), c.ANNDeferred, "imports defer the graph insertion")
	for {
		n, err := s.IndexDeferred(ctx, 1000)
		require.NoError(t, err)
		if n == 0 {
			break
		}
	}
	_, err = pool.Exec(ctx, "ANALYZE memories")
	require.NoError(t, err)

	q := store.VectorQuery{Vector: storetest.RandomVec(r), Scopes: []store.ScopeRef{store.Project("project-1"), store.Global}, Limit: 10}
	sql, args := pgstore.NearestSQL(q)
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, "SET LOCAL plan_cache_mode = force_custom_plan; SET LOCAL hnsw.iterative_scan = relaxed_order")
	require.NoError(t, err)
	rows, err := tx.Query(ctx, "EXPLAIN "+sql, args...)
	require.NoError(t, err)
	var plan []string
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		plan = append(plan, line)
	}
	require.NoError(t, rows.Err())
	require.Contains(t, strings.Join(plan, "\n"), "Index Scan using memories_ann_suite_v1_16", strings.Join(plan, "\n"))
	require.Contains(t, strings.Join(plan, "\n"), "memories_ann_deferred", "the exact scan of deferred rows reads the empty partial index, not the table")

	// And the filtered ANN answer has the right rows: every hit is in project-1.
	hits, err := s.Nearest(ctx, q)
	require.NoError(t, err)
	require.Len(t, hits, 10)
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		ids = append(ids, h.ID.String())
	}
	var wrong int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM memories WHERE id::text = ANY($1) AND scope_key <> 'project-1'`, ids).Scan(&wrong))
	require.Zero(t, wrong)
}
