package memory_test

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/lexical"
	"github.com/memhost/memhost/host/internal/memory"
	"github.com/memhost/memhost/host/internal/store"
	"github.com/memhost/memhost/host/internal/store/pgstore"
	"github.com/memhost/memhost/host/internal/testdb"
	"github.com/memhost/memhost/host/internal/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// countingStore counts nearest-neighbour lookups.
type countingStore struct {
	store.Store
	nearest atomic.Int32
}

func (c *countingStore) Nearest(ctx context.Context, q store.VectorQuery) ([]store.VectorHit, error) {
	c.nearest.Add(1)
	return c.Store.Nearest(ctx, q)
}

// TestSearchRunsTheVectorLookupOnlyWhenItCanChangeTheResult: with the BM25 floor, a query whose
// lexical hits fill the top 10 with scores above the vector path's weight is answered without
// the nearest-neighbour lookup; a query with few lexical hits still runs it. The metric counts
// both.
func TestSearchRunsTheVectorLookupOnlyWhenItCanChangeTheResult(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	st := &countingStore{Store: pgstore.New(pool)}
	reg := prometheus.NewRegistry()
	m := memory.NewMetrics(reg)
	svc := memory.New(st, lexical.New(), memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), nil, memory.DefaultConfig(), memory.WithMetrics(m))
	ctx := context.Background()
	a := memory.Access{Project: "github.com/acme/app", Actor: "alice"}
	for i := range 14 {
		_, err := svc.Store(ctx, a, memory.StoreRequest{Text: fmt.Sprintf("Service %d of the payments API listens on port %d behind the gateway.", i, 8000+i)})
		require.NoError(t, err)
	}
	_, err := svc.Store(ctx, a, memory.StoreRequest{Text: "Releases are tagged by the release captain on Thursdays."})
	require.NoError(t, err)

	res, err := svc.Search(ctx, a, memory.SearchRequest{Query: "which port does the payments API service listen on"})
	require.NoError(t, err)
	require.Len(t, res.Hits, 10)
	require.Zero(t, st.nearest.Load(), "ten strong lexical hits settle the result")

	res, err = svc.Search(ctx, a, memory.SearchRequest{Query: "who tags releases"})
	require.NoError(t, err)
	require.NotEmpty(t, res.Hits)
	require.Contains(t, res.Hits[0].Text, "release captain")
	require.EqualValues(t, 1, st.nearest.Load(), "one lexical hit leaves room for the vector path")

	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`# HELP memhost_memory_search_vector_lookups_total Searches with a query vector, by whether they ran the nearest-neighbour lookup (skipped: the lexical hits already outscore anything only it could find).
# TYPE memhost_memory_search_vector_lookups_total counter
memhost_memory_search_vector_lookups_total{outcome="ran"} 1
memhost_memory_search_vector_lookups_total{outcome="skipped"} 1
`), "memhost_memory_search_vector_lookups_total"))
}
