package lexical_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestMergedTextsAreIndexedWithTheirMemory: texts a memory absorbed by folding are found
// through it, and drop out when a newer version of the memory no longer carries them.
func TestMergedTextsAreIndexedWithTheirMemory(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	scopes := []store.ScopeRef{store.Project("p")}
	m := change(1, "p", "payments talk to stripe through the proxy")
	m.Merged = []string{"payments talk to stripe through the ledger proxy"}
	ix.Apply(m)
	ix.Apply(change(2, "p", "the ledger service owns invoices"))
	hits := ix.Search(lexical.Query{Text: "stripe ledger", Scopes: scopes, Limit: 10})
	require.Len(t, hits, 2)
	require.Equal(t, m.ID, hits[0].ID, "the memory matches both words, one of them only in its absorbed text")

	m.Seq, m.Merged = 3, nil
	ix.Apply(m)
	hits = ix.Search(lexical.Query{Text: "stripe ledger", Scopes: scopes, Limit: 10})
	require.Len(t, hits, 2)
	require.InDelta(t, 0.5, hits[0].Coverage, 1e-9, "without its merged text the memory matches stripe only")
}
