package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// TestFoldedTextStaysFindable: a fold keeps the losing text only in merged_from; a search for
// words that only it holds finds the canonical memory, on the writing host and on a host that
// follows the change feed, so even a wrong fold loses nothing.
func TestFoldedTextStaysFindable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "Payments talk to Stripe through the proxy."})
	require.NoError(t, err)
	second, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "Payments talk to Stripe through the ledger proxy."})
	require.NoError(t, err)
	require.True(t, second.Folded, "similarity %.3f", second.Similarity)
	require.Equal(t, first.ID, second.ID)
	require.Equal(t, "Payments talk to Stripe through the proxy.", second.Memory.Text, "the first text stays canonical")
	require.NotContains(t, second.Memory.Text, "ledger")

	found, err := b.svc.Search(ctx, alice, memory.SearchRequest{Query: "ledger"})
	require.NoError(t, err)
	require.NotEmpty(t, found.Hits, "the absorbed text is searchable on this host")
	require.Equal(t, first.ID, found.Hits[0].ID)
	require.NotNil(t, found.Hits[0].Lexical, "found by its words, not merely as the nearest vector")

	other := lexical.New()
	_, err = lexical.NewFollower(b.store, other, time.Second).CatchUp(ctx)
	require.NoError(t, err)
	hits := other.Search(lexical.Query{Text: "ledger", Scopes: []store.ScopeRef{store.Project(alice.Project)}, Limit: 10})
	require.Len(t, hits, 1, "and on a host that follows the change feed")
	require.Equal(t, first.ID, hits[0].ID)
}

// TestStoreFoldsThroughLexicalCandidates: a write finds what it may fold into through the
// lexical index, however old the memory is and however many were written since (the store
// adds only the scope's few newest rows itself), in a small project and on a host that
// learned the memory from the change feed.
func TestStoreFoldsThroughLexicalCandidates(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	old, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "The billing worker retries failed webhooks five times with backoff."})
	require.NoError(t, err)
	for i, topic := range []string{"deploys", "migrations", "linting", "releases", "docs", "fixtures", "tracing", "caching", "queues", "metrics"} {
		_, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "Note " + string(rune('a'+i)) + ": " + topic + " are owned by the platform team and reviewed weekly."})
		require.NoError(t, err)
	}
	again, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "The billing worker retries failed webhooks five times, with backoff."})
	require.NoError(t, err)
	require.True(t, again.Folded, "similarity %.3f", again.Similarity)
	require.Equal(t, old.ID, again.ID)

	// A second host on the same database knows the memory from the feed alone.
	ix := lexical.New()
	_, err = lexical.NewFollower(b.store, ix, time.Second).CatchUp(ctx)
	require.NoError(t, err)
	other := memory.New(b.store, ix, memory.Fixed(embeddertest.Launch(t, testplugins.BM25(t))), nil, memory.DefaultConfig())
	third, err := other.Store(ctx, alice, memory.StoreRequest{Text: "the billing worker retries failed webhooks five times with backoff"})
	require.NoError(t, err)
	require.True(t, third.Folded)
	require.Equal(t, old.ID, third.ID)
}
