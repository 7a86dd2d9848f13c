package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/lexical"
	"github.com/memhost/memhost/host/internal/memory"
	"github.com/memhost/memhost/host/internal/store"
)

// TestFoldedTextStaysFindable: a fold keeps the losing text only in merged_from; a search for
// words that only it holds finds the canonical memory, on the writing host and on a host that
// follows the change feed, so even a wrong fold loses nothing.
func TestFoldedTextStaysFindable(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	first, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "Payments talk to Stripe through the ledger proxy."})
	require.NoError(t, err)
	second, err := b.svc.Store(ctx, alice, memory.StoreRequest{Text: "Payments talk to Stripe through the proxy."})
	require.NoError(t, err)
	require.True(t, second.Folded, "similarity %.3f", second.Similarity)
	require.Equal(t, first.ID, second.ID)
	require.Equal(t, "Payments talk to Stripe through the proxy.", second.Memory.Text, "the newer text is canonical")
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
