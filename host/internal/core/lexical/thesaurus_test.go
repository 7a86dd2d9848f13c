package lexical_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/store"
)

func TestExpandBridgesVocabulary(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	pnpm := change(1, "p", "Use pnpm only, never npm or yarn.")
	ix.Apply(pnpm)
	ix.Apply(change(2, "p", "The api server listens on port 8080."))
	q := lexical.Query{Text: "which package manager", Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10}
	require.Empty(t, ix.Search(q), "plain BM25 shares no term with the answer")
	q.Expand = true
	hits := ix.Search(q)
	require.Len(t, hits, 1)
	require.Equal(t, pnpm.ID, hits[0].ID)
	require.InDelta(t, 1.0, hits[0].Coverage, 1e-9, "a phrase and its expansions are one concept")
}

func TestExpandKeepsLiteralMatchesFirst(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	literal := change(1, "p", "Report a security issue by mail, never in the public tracker.")
	synonym := change(2, "p", "Report a vulnerability by mail, never in the public tracker.")
	ix.Apply(literal)
	ix.Apply(synonym)
	ix.Apply(change(3, "p", "The tracker is public."))
	hits := ix.Search(lexical.Query{Text: "security issue report", Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10, Expand: true})
	require.Len(t, hits, 2)
	require.Equal(t, literal.ID, hits[0].ID, "the literal words outrank their synonym")
	require.Equal(t, synonym.ID, hits[1].ID)
	require.Greater(t, hits[0].Score, hits[1].Score)
}

func TestCategoryMembersDoNotExpandToEachOther(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	ix.Apply(change(1, "p", "Frontend dependencies use npm."))
	hits := ix.Search(lexical.Query{Text: "pnpm", Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10, Expand: true})
	require.Empty(t, hits, "asking about pnpm must not find a memory about npm")
}

func TestExpansionNeverLosesALiteralMatch(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	for i, text := range []string{"the build uses make", "postgres listens on a socket", "package manager is pnpm"} {
		ix.Apply(change(int64(i+1), "p", text))
	}
	q := lexical.Query{Text: "package manager postgres", Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10}
	plain := ix.Search(q)
	require.Len(t, plain, 2)
	// Expansion may add candidates and weight, never take a literal match away.
	q.Expand = true
	expanded := ix.Search(q)
	for _, h := range plain {
		require.Contains(t, ids(expanded), h.ID)
	}
}

func ids(hits []lexical.Hit) []uuid.UUID {
	out := make([]uuid.UUID, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestPhraseExpansionNeedsEveryWord(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	both := change(1, "p", "The package manager version is pinned in CI.")
	ix.Apply(both)
	ix.Apply(change(2, "p", "The package is published weekly."))
	// pnpm is a member of the "package manager" category, so it looks for the whole phrase.
	hits := ix.Search(lexical.Query{Text: "pnpm", Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10, Expand: true})
	require.Len(t, hits, 1)
	require.Equal(t, both.ID, hits[0].ID)
}
