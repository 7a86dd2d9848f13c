package memory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestSearchAndListFilter: a filter narrows a search before its cut to top_k (so a pinned
// memory ranked 40th is still found) and a listing alike.
func TestSearchAndListFilter(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	texts := make([]string, 40)
	for i := range texts {
		texts[i] = "the deploy script uploads build artefact number " + string(rune('a'+i%26)) + string(rune('a'+i/26))
	}
	ids := seed(t, b, alice, texts...)
	_, err := b.svc.SetPinned(ctx, alice, ids[39], true)
	require.NoError(t, err)

	res, err := b.svc.Search(ctx, alice, memory.SearchRequest{Query: "deploy script build artefact", TopK: 3, Filter: store.Filter{Pinned: true}})
	require.NoError(t, err)
	require.Len(t, res.Hits, 1)
	require.Equal(t, ids[39], res.Hits[0].ID)

	page, err := b.svc.List(ctx, alice, memory.ListRequest{Filter: store.Filter{Pinned: true}})
	require.NoError(t, err)
	require.Len(t, page.Memories, 1)
	require.Equal(t, ids[39], page.Memories[0].ID)
}
