package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
)

// TestSearchIsNotAUseAndGetIs: showing a memory in search results must not raise its rank
// (otherwise what was shown before is shown again and the order of past queries decides the
// ranking); reading it with Get is a use and does.
func TestSearchIsNotAUseAndGetIs(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var ids []uuid.UUID
	for _, text := range []string{
		"The billing api service listens on port 8080.",
		"The billing api service port is documented in docs/ports.md.",
		"Deploys go through ArgoCD.",
	} {
		r, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: text})
		require.NoError(t, err)
		ids = append(ids, r.ID)
	}
	scores := func() map[uuid.UUID]float64 {
		res, err := b.svc.Search(ctx, alice, memory.SearchRequest{Query: "billing api service port"})
		require.NoError(t, err)
		out := map[uuid.UUID]float64{}
		for _, h := range res.Hits {
			out[h.ID] = h.Score
		}
		return out
	}
	before := scores()
	require.Contains(t, before, ids[0])
	for range 20 {
		scores()
	}
	// Reading the third memory is a use the recorder writes after anything the searches
	// queued, so once it lands every search's effect (none) has landed too.
	_, err := b.svc.Get(ctx, alice, ids[2])
	require.NoError(t, err)
	uses := func(id uuid.UUID) int64 {
		m, err := b.store.Get(ctx, id)
		require.NoError(t, err)
		return m.HitCount
	}
	require.Eventually(t, func() bool { return uses(ids[2]) == 1 }, 5*time.Second, 20*time.Millisecond)
	require.Zero(t, uses(ids[0]), "search results are not uses")
	require.Zero(t, uses(ids[1]), "search results are not uses")
	same := func(want, got map[uuid.UUID]float64) {
		t.Helper()
		require.Len(t, got, len(want))
		for id, score := range want {
			// Only the seconds of recency decay between two searches may differ.
			require.InDelta(t, score, got[id], 1e-6, "searching does not change the ranking")
		}
	}
	same(before, scores())

	_, err = b.svc.Get(ctx, alice, ids[1])
	require.NoError(t, err)
	require.Eventually(t, func() bool { return uses(ids[1]) == 1 }, 5*time.Second, 20*time.Millisecond)
	after := scores()
	require.Greater(t, after[ids[1]], before[ids[1]], "a used memory ranks higher")
	require.InDelta(t, before[ids[0]], after[ids[0]], 1e-6)
}

// TestSearchAndGetRecordRetrieval: a search's results and a get's memory are marked retrieved
// (what the staleness job spares), while a search still adds no use; a memory no read
// returned stays never retrieved.
func TestSearchAndGetRecordRetrieval(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	var ids []uuid.UUID
	for _, text := range []string{"The billing api listens on port 8080.", "Deploys go through ArgoCD.", "Lint runs golangci-lint in CI."} {
		r, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: text})
		require.NoError(t, err)
		ids = append(ids, r.ID)
	}
	res, err := b.svc.Search(ctx, alice, memory.SearchRequest{Query: "billing api port"})
	require.NoError(t, err)
	require.Len(t, res.Hits, 1)
	_, err = b.svc.Get(ctx, alice, ids[1])
	require.NoError(t, err)
	retrieved := func(id uuid.UUID) bool {
		at, err := b.store.LastRetrieved(ctx, id)
		require.NoError(t, err)
		return at != nil
	}
	require.Eventually(t, func() bool { return retrieved(ids[0]) && retrieved(ids[1]) }, 5*time.Second, 20*time.Millisecond)
	require.False(t, retrieved(ids[2]), "no read returned it")
	m, err := b.store.Get(ctx, ids[0])
	require.NoError(t, err)
	require.Zero(t, m.HitCount, "a search result is retrieved, not used")
}
