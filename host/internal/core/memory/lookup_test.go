package memory_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder"
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

	require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`# HELP memhost_memory_search_vector_lookups_total Searches with a query vector, by what became of the nearest-neighbour lookup: ran, skipped (the lexical hits already outscore anything only it could find) or unused (started early for a semantic embedder, then not needed).
# TYPE memhost_memory_search_vector_lookups_total counter
memhost_memory_search_vector_lookups_total{outcome="ran"} 1
memhost_memory_search_vector_lookups_total{outcome="skipped"} 1
`), "memhost_memory_search_vector_lookups_total"))
}

// renamed presents an embedder under another name; any name but the floor's (bm25-...) makes the
// service weigh its vectors as a semantic embedder's.
type renamed struct {
	embedder.Embedder
	name string
}

func (r renamed) Describe(ctx context.Context) (embedder.Info, error) {
	info, err := r.Embedder.Describe(ctx)
	info.Name = r.name
	return info, err
}

// gatedStore makes each read of candidate rows wait, once gated, for a nearest-neighbour
// lookup to have begun, and fails the read if none begins within wait.
type gatedStore struct {
	store.Store
	gated   atomic.Bool
	wait    time.Duration
	started chan struct{}
	once    sync.Once
}

func (g *gatedStore) Nearest(ctx context.Context, q store.VectorQuery) ([]store.VectorHit, error) {
	g.once.Do(func() { close(g.started) })
	return g.Store.Nearest(ctx, q)
}

func (g *gatedStore) GetMany(ctx context.Context, ids []uuid.UUID, vec *store.Vector) ([]store.Loaded, error) {
	if g.gated.Load() {
		select {
		case <-g.started:
		case <-time.After(g.wait):
			return nil, errors.New("candidates read before the lookup began")
		}
	}
	return g.Store.GetMany(ctx, ids, vec)
}

// TestSemanticSearchStartsTheLookupBesideTheFirstRead: a semantic embedder's lookup is nearly
// always needed, so it starts as soon as the query is embedded, beside the first read of the
// lexical candidates, and that read does not wait for it to be asked for; when the lexical
// hits settle the result after all, its rows are never read and it counts as unused. The
// floor's lookup starts only once that read says it is needed.
func TestSemanticSearchStartsTheLookupBesideTheFirstRead(t *testing.T) {
	t.Parallel()
	pool, _ := testdb.Migrated(t)
	bm25 := embeddertest.Launch(t, testplugins.BM25(t))
	ctx := context.Background()
	a := memory.Access{Project: "github.com/acme/app", Actor: "alice"}
	for _, tc := range []struct {
		embedder string
		early    bool
	}{{"dense-test-384", true}, {"bm25-v1-384", false}} {
		st := &gatedStore{Store: pgstore.New(pool), wait: 2 * time.Second, started: make(chan struct{})}
		if !tc.early {
			st.wait = 200 * time.Millisecond
		}
		reg := prometheus.NewRegistry()
		svc := memory.New(st, lexical.New(), memory.Fixed(renamed{bm25, tc.embedder}), nil, memory.DefaultConfig(), memory.WithMetrics(memory.NewMetrics(reg)))
		for _, text := range []string{"Releases are tagged by the release captain on Thursdays.", "The payments API listens on port 8080."} {
			_, err := svc.Store(ctx, a, memory.StoreRequest{Text: text})
			require.NoError(t, err)
		}
		st.gated.Store(true)
		res, err := svc.Search(ctx, a, memory.SearchRequest{Query: "who tags releases"})
		if !tc.early {
			require.ErrorContains(t, err, "candidates read before the lookup began", "the floor reads the lexical candidates first")
			continue
		}
		require.NoError(t, err)
		require.Contains(t, res.Hits[0].Text, "release captain")

		// Ten strong matches of every word settle a semantic search too; the early lookup's
		// rows are then never read.
		full := 1.0
		for i := range 12 {
			_, err := svc.Store(ctx, a, memory.StoreRequest{Text: fmt.Sprintf("Service %d of the payments API listens on port %d behind the gateway.", i, 8000+i), Importance: &full, Confidence: &full})
			require.NoError(t, err)
		}
		res, err = svc.Search(ctx, a, memory.SearchRequest{Query: "service of the payments API listens on port behind the gateway"})
		require.NoError(t, err)
		require.Len(t, res.Hits, 10)
		require.NoError(t, testutil.GatherAndCompare(reg, strings.NewReader(`# HELP memhost_memory_search_vector_lookups_total Searches with a query vector, by what became of the nearest-neighbour lookup: ran, skipped (the lexical hits already outscore anything only it could find) or unused (started early for a semantic embedder, then not needed).
# TYPE memhost_memory_search_vector_lookups_total counter
memhost_memory_search_vector_lookups_total{outcome="ran"} 1
memhost_memory_search_vector_lookups_total{outcome="unused"} 1
`), "memhost_memory_search_vector_lookups_total"))
	}
}
