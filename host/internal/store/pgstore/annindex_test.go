package pgstore_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/store"
	"github.com/memhost/memhost/host/internal/store/pgstore"
	"github.com/memhost/memhost/host/internal/store/storetest"
	"github.com/memhost/memhost/host/internal/testdb"
)

const suiteIndex = "memories_ann_suite_v1_16"

// annIndexes lists the schema's HNSW indexes with their options and validity.
func annIndexes(t *testing.T, pool *pgxpool.Pool) map[string]string {
	t.Helper()
	rows, err := pool.Query(context.Background(), `SELECT c.relname, coalesce(array_to_string(c.reloptions, ','), ''), i.indisvalid
		FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
		WHERE a.amname = 'hnsw' AND c.relnamespace = current_schema()::regnamespace`)
	require.NoError(t, err)
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var name, opts string
		var valid bool
		require.NoError(t, rows.Scan(&name, &opts, &valid))
		out[name] = fmt.Sprintf("%s valid=%v", opts, valid)
	}
	require.NoError(t, rows.Err())
	return out
}

func seedVectors(t *testing.T, s *pgstore.Store, n int) store.Vector {
	t.Helper()
	r := rand.New(rand.NewPCG(3, 4))
	recs := make([]store.ExportRecord, n)
	for i := range recs {
		w := storetest.NewWrite("project-a", fmt.Sprintf("fact %d", i), storetest.RandomVec(r))
		recs[i] = store.ExportRecord{Memory: store.Memory{ID: w.ID, Scope: w.Scope, ScopeKey: w.ScopeKey, Kind: w.Kind, Text: w.Text, Importance: 0.5, Confidence: 0.5}, Vector: w.Vector}
	}
	_, err := s.Import(context.Background(), recs)
	require.NoError(t, err)
	return storetest.RandomVec(r)
}

func TestVectorIndexIsBuiltWithParameters(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	require.NoError(t, pgstore.New(pool).EnsureVectorIndex(context.Background(), storetest.Embedder, storetest.Dims))
	require.Equal(t, map[string]string{suiteIndex: "m=16,ef_construction=128 valid=true"}, annIndexes(t, pool))
}

// TestVectorIndexRebuildsStale: an index built with other parameters, or left invalid by an
// interrupted concurrent build, is replaced by a current one under the same name, once, even
// when several hosts ensure it at the same time, and searches find the same rows afterwards.
func TestVectorIndexRebuildsStale(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool)
	q := seedVectors(t, s, 500)
	_, err := pool.Exec(ctx, fmt.Sprintf(`CREATE INDEX %s ON memories USING hnsw ((embedding::vector(%d)) vector_cosine_ops) WHERE embedder = '%s'`,
		suiteIndex, storetest.Dims, storetest.Embedder))
	require.NoError(t, err)
	require.Equal(t, map[string]string{suiteIndex: " valid=true"}, annIndexes(t, pool))

	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims) })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, map[string]string{suiteIndex: "m=16,ef_construction=128 valid=true"}, annIndexes(t, pool))

	// Simulate a concurrent build that died half way: the catalog marks the index invalid.
	_, err = pool.Exec(ctx, `UPDATE pg_index SET indisvalid = false WHERE indexrelid = to_regclass($1)`, suiteIndex)
	require.NoError(t, err)
	require.NoError(t, s.EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims))
	require.Equal(t, map[string]string{suiteIndex: "m=16,ef_construction=128 valid=true"}, annIndexes(t, pool))

	hits, err := s.Nearest(ctx, store.VectorQuery{Vector: q, Scopes: []store.ScopeRef{store.Project("project-a")}, Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 10)
}

// TestVectorIndexNamesOfLongEmbedders: Postgres cuts identifiers at 63 bytes, so two long
// embedder names that differ only at the end must still get two indexes.
func TestVectorIndexNamesOfLongEmbedders(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool)
	base := strings.Repeat("long-embedder-name.", 3)
	for _, name := range []string{base + "v1-16", base + "v2-16"} {
		require.NoError(t, s.EnsureVectorIndex(ctx, name, storetest.Dims))
	}
	got := annIndexes(t, pool)
	require.Len(t, got, 2, "indexes: %v", got)
	for name := range got {
		require.LessOrEqual(t, len(name), 63)
	}
}

// TestVectorIndexCreatedByHostsAtOnce: hosts starting together on an empty database all ensure
// the index; every one succeeds and there is one index.
func TestVectorIndexCreatedByHostsAtOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, _ := testdb.Migrated(t)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range errs {
		wg.Go(func() { errs[i] = pgstore.New(pool).EnsureVectorIndex(ctx, storetest.Embedder, storetest.Dims) })
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	require.Equal(t, map[string]string{suiteIndex: "m=16,ef_construction=128 valid=true"}, annIndexes(t, pool))
}
