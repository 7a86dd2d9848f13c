package lexical_test

import (
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/store"
)

func change(seq int64, project, text string) store.Change {
	return store.Change{Seq: seq, ID: uuid.Must(uuid.NewV7()), Scope: store.ScopeProject, ScopeKey: project, Kind: store.KindFact, Text: text}
}

func TestBM25UsesIDF(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	common := []store.Change{
		change(1, "p", "the build uses make for the build"),
		change(2, "p", "the build runs tests"),
		change(3, "p", "the build caches modules"),
		change(4, "p", "postgres listens on a unix socket in the build"),
	}
	for _, c := range common {
		ix.Apply(c)
	}
	hits := ix.Search(lexical.Query{Text: "build postgres", Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10})
	require.Len(t, hits, 4)
	// The rare term decides: only one memory mentions postgres.
	require.Equal(t, common[3].ID, hits[0].ID)
	require.InDelta(t, 1.0, hits[0].Coverage, 1e-9)
	require.InDelta(t, 0.5, hits[1].Coverage, 1e-9)
}

func TestIDFIsPerScopeAndIgnoresRemovedMemories(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	p := store.Project("p")
	for i, text := range []string{"the build uses make", "the build runs tests", "postgres in the build"} {
		ix.Apply(change(int64(i+1), "p", text))
	}
	ix.Apply(change(4, "q", "postgres everywhere"))
	require.Greater(t, ix.IDF(p, "postgr"), ix.IDF(p, "build"), "a rare term weighs more than a common one")
	require.Equal(t, ix.IDF(p, "postgr"), ix.IDF(p, "absent"), "a term the scope lacks weighs like one held once")
	require.Positive(t, ix.IDF(store.Project("none"), "build"), "an empty scope still gives a weight")

	gone := change(5, "p", "postgres replication notes")
	ix.Apply(gone)
	before := ix.IDF(p, "postgr")
	gone.Seq, gone.Text = 6, "replication notes"
	ix.Apply(gone)
	require.Greater(t, ix.IDF(p, "postgr"), before, "a rewritten memory no longer counts its old terms")
}

func TestLengthNormalisation(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	short := change(1, "p", "pnpm workspaces")
	long := change(2, "p", "pnpm is mentioned once in this much longer memory about many other unrelated topics entirely")
	ix.Apply(short)
	ix.Apply(long)
	ix.Apply(change(3, "p", "unrelated filler text"))
	hits := ix.Search(lexical.Query{Text: "pnpm", Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10})
	require.Equal(t, short.ID, hits[0].ID)
}

func TestPartitionsIsolateProjects(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	a := change(1, "a", "secret project alpha uses kafka")
	ix.Apply(a)
	ix.Apply(change(2, "b", "project beta uses kafka too"))
	g := store.Change{Seq: 3, ID: uuid.Must(uuid.NewV7()), Scope: store.ScopeGlobal, Kind: store.KindPreference, Text: "prefer kafka streams"}
	ix.Apply(g)
	hits := ix.Search(lexical.Query{Text: "kafka", Scopes: []store.ScopeRef{store.Project("a"), store.Global}, Limit: 10})
	require.Len(t, hits, 2)
	ids := []uuid.UUID{hits[0].ID, hits[1].ID}
	require.ElementsMatch(t, []uuid.UUID{a.ID, g.ID}, ids)
}

func TestUpdatesArchiveAndStaleReplays(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	c := change(1, "p", "deploys use helm")
	ix.Apply(c)
	updated := c
	updated.Seq, updated.Text = 5, "deploys use argocd"
	ix.Apply(updated)
	ix.Apply(c) // an old replay must not resurrect the old text
	q := lexical.Query{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10}
	q.Text = "helm"
	require.Empty(t, ix.Search(q))
	q.Text = "argocd"
	require.Len(t, ix.Search(q), 1)

	archived := updated
	archived.Seq, archived.Archived = 6, true
	ix.Apply(archived)
	require.Empty(t, ix.Search(q))
	q.IncludeArchived = true
	require.Len(t, ix.Search(q), 1)
	q.Kinds = []store.Kind{store.KindGotcha}
	require.Empty(t, ix.Search(q))
}

func TestCompactionKeepsResults(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	c := change(1, "p", "version 0")
	ix.Apply(c)
	for i := int64(2); i < 3000; i++ {
		c.Seq = i
		c.Text = "rewritten memory text"
		ix.Apply(c)
	}
	require.Equal(t, 1, ix.Len())
	hits := ix.Search(lexical.Query{Text: "rewritten", Scopes: []store.ScopeRef{store.Project("p")}, Limit: 10})
	require.Len(t, hits, 1)
	require.Equal(t, c.ID, hits[0].ID)
}

func TestTopKMatchesFullRanking(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	words := []string{"alpha", "beta", "gamma", "delta", "kafka", "redis", "postgres", "helm"}
	for i := range 500 {
		text := words[i%len(words)] + " " + words[(i/3)%len(words)] + " " + words[(i/7)%len(words)]
		ix.Apply(change(int64(i+1), "p", text))
	}
	q := lexical.Query{Text: "kafka redis helm", Scopes: []store.ScopeRef{store.Project("p")}}
	q.Limit = 1000
	all := ix.Search(q)
	q.Limit = 7
	top := ix.Search(q)
	require.Len(t, top, 7)
	require.Equal(t, all[:7], top, "the heap keeps exactly the best hits in order")
}

func BenchmarkSearch100K(b *testing.B) {
	ix := index100K("service", "port", "listen", "deploy", "helm", "kafka", "redis", "postgres", "test", "build",
		"lint", "config", "yaml", "docker", "api", "grpc", "proto", "schema", "migration", "cache")
	// The read path asks for the fact kinds, so the kind filter is part of the cost.
	q := lexical.Query{Text: "which port does the api service listen on", Scopes: []store.ScopeRef{store.Project("p")}, Kinds: store.Kinds, Limit: 100}
	b.ResetTimer()
	for b.Loop() {
		ix.Search(q)
	}
}

// BenchmarkSearchExpanded100K is the read path's query: thesaurus expansion on.
func BenchmarkSearchExpanded100K(b *testing.B) {
	ix := index100K("service", "port", "listen", "deploy", "helm", "kafka", "redis", "postgres", "test", "build",
		"lint", "config", "yaml", "docker", "api", "grpc", "proto", "schema", "migration", "cache", "pnpm", "npm")
	q := lexical.Query{Text: "which package manager and container setup does the api service use", Scopes: []store.ScopeRef{store.Project("p")}, Kinds: store.Kinds, Limit: 100, Expand: true}
	b.ResetTimer()
	for b.Loop() {
		ix.Search(q)
	}
}

func index100K(words ...string) *lexical.Index {
	ix := lexical.New()
	for i := range 100_000 {
		text := ""
		for j := range 8 {
			text += words[(i*7+j*13+i/(j+1))%len(words)] + " "
		}
		ix.Apply(change(int64(i+1), "p", text+"unique"+string(rune('a'+i%26))))
	}
	return ix
}

func TestKindFilter(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	ids := map[store.Kind]uuid.UUID{}
	// "runbook" is no kind memhost knows: it has no bit of its own and is compared by name.
	for i, k := range []store.Kind{store.KindFact, store.KindGotcha, store.KindJournal, "runbook", "playbook"} {
		c := change(int64(i+1), "p", "the deploy needs a green build")
		c.Kind = k
		ids[k] = c.ID
		ix.Apply(c)
	}
	found := func(kinds ...store.Kind) []uuid.UUID {
		var out []uuid.UUID
		for _, h := range ix.Search(lexical.Query{Text: "deploy build", Scopes: []store.ScopeRef{store.Project("p")}, Kinds: kinds, Limit: 10}) {
			out = append(out, h.ID)
		}
		return out
	}
	require.ElementsMatch(t, []uuid.UUID{ids[store.KindGotcha]}, found(store.KindGotcha))
	require.ElementsMatch(t, []uuid.UUID{ids[store.KindFact], ids[store.KindJournal]}, found(store.KindFact, store.KindJournal))
	require.ElementsMatch(t, []uuid.UUID{ids["runbook"]}, found("runbook"))
	require.ElementsMatch(t, []uuid.UUID{ids["runbook"], ids[store.KindFact]}, found("runbook", store.KindFact))
	require.Len(t, found(), 5, "no kinds asked: every kind")
	require.Empty(t, found("handbook"))
}

// TestRarestScoresOnlyTheRareTerms: with Rarest, a long text finds what shares its rare terms
// (its near-duplicates), and a memory sharing only its common terms is not even touched.
func TestRarestScoresOnlyTheRareTerms(t *testing.T) {
	t.Parallel()
	ix := lexical.New()
	seq := int64(0)
	add := func(text string) store.Change {
		seq++
		c := change(seq, "p", text)
		ix.Apply(c)
		return c
	}
	for i := range 40 {
		add("the service returns an error when the request fails " + string(rune('a'+i%26)))
	}
	dup := add("the scheduler retries webhook deliveries when the request fails")
	add("the scheduler returns an error") // shares only common terms and "scheduler"
	q := lexical.Query{Text: "Note: the scheduler retries webhook deliveries when the request fails", Scopes: []store.ScopeRef{store.Project("p")}, Limit: 5}

	q.Rarest = 3 // webhook, deliveries, retries (scheduler and note are next)
	hits := ix.Search(q)
	require.Len(t, hits, 1, "only what holds a rare term is scored")
	require.Equal(t, dup.ID, hits[0].ID)

	q.Rarest = 0
	hits = ix.Search(q)
	require.Len(t, hits, 5, "every term: the common ones touch every memory")
	require.Equal(t, dup.ID, hits[0].ID)
}
