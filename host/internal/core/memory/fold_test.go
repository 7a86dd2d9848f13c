package memory

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/core/store/pgstore"
	"github.com/memhost/memhost/host/internal/core/store/storetest"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
)

func TestFoldParams(t *testing.T) {
	t.Parallel()
	rule := FoldRule{Threshold: 0.9, MergedFromMax: 2}
	earlier := time.Now().Add(-time.Hour).UTC()
	existing := store.Memory{ID: uuid.Must(uuid.NewV7()), Kind: store.KindFact, Text: "We use pnpm here", Importance: 0.3,
		Confidence: 0.8, Provenance: store.Provenance{Agent: "claude-code"}, DedupedCount: 1,
		MergedFrom: []store.Merged{{Text: "pnpm is used", At: earlier}}}
	incoming := storetest.NewWrite("p", "This repo uses pnpm", storetest.Vec(0, 0))
	incoming.Kind, incoming.Importance, incoming.Provenance = store.KindConvention, 0.7, store.Provenance{Agent: "codex", Session: "s9"}

	t.Run("the first text stays when neither is better, and the other is kept", func(t *testing.T) {
		t.Parallel()
		p := foldParams(existing, incoming, 0.93, rule)
		require.Equal(t, existing.ID, p.ID)
		require.Nil(t, p.Replacement)
		require.Equal(t, "We use pnpm here", p.Before)
		require.Equal(t, "We use pnpm here", p.After)
		require.Equal(t, store.KindConvention, p.Kind, "a specific kind replaces fact whichever text stays")
		require.Equal(t, 0.7, p.Importance)
		require.Equal(t, 2, p.DedupedCount)
		require.Len(t, p.MergedFrom, 2)
		require.Equal(t, store.Merged{Text: "This repo uses pnpm", Agent: "codex", At: p.MergedFrom[1].At}, p.MergedFrom[1])
		require.Equal(t, map[string]any{"agent": "codex", "session": "s9", "similarity": 0.93, "canonical": "existing",
			"canonical_because": "first written", "folded_text": "This repo uses pnpm"}, p.Detail)
		require.Len(t, existing.MergedFrom, 1, "the existing memory's slice is not written through")
	})
	t.Run("a more specific or better formed text takes over", func(t *testing.T) {
		t.Parallel()
		for _, c := range []struct{ existing, incoming, because string }{
			{"we use pnpm", "we use pnpm 9", "more specific"},
			{"we use pnpm here", "We use pnpm here.", "well-formed"},
			{"pnpm installs deps", "`pnpm` installs the dependencies.", "well-formed"},
		} {
			e := existing
			e.Text = c.existing
			w := incoming
			w.Text = c.incoming
			p := foldParams(e, w, 0.95, rule)
			require.NotNil(t, p.Replacement, "%q over %q", c.incoming, c.existing)
			require.Equal(t, c.incoming, p.After)
			require.Equal(t, store.Merged{Text: c.existing, Agent: "claude-code", At: p.MergedFrom[1].At}, p.MergedFrom[1])
			require.Equal(t, "incoming", p.Detail["canonical"])
			require.Equal(t, c.because, p.Detail["canonical_because"])
			// The other way round the same text stays.
			e.Text, w.Text = c.incoming, c.existing
			p = foldParams(e, w, 0.95, rule)
			require.Nil(t, p.Replacement, "%q stays over %q", c.incoming, c.existing)
			require.Equal(t, c.because, p.Detail["canonical_because"])
		}
	})
	t.Run("a more confident write takes over", func(t *testing.T) {
		t.Parallel()
		w := incoming
		w.Confidence = 0.9
		p := foldParams(existing, w, 0.93, rule)
		require.NotNil(t, p.Replacement)
		require.Equal(t, "more confident", p.Detail["canonical_because"])
	})
	t.Run("a pinned or more confident row keeps its text", func(t *testing.T) {
		t.Parallel()
		for _, e := range []store.Memory{{Pinned: true, Confidence: 0.5}, {Confidence: 0.95}} {
			e.ID, e.Kind, e.Text = existing.ID, store.KindGotcha, existing.Text
			p := foldParams(e, incoming, 0.93, rule)
			require.Nil(t, p.Replacement)
			require.Equal(t, e.Text, p.After)
			require.Equal(t, store.KindGotcha, p.Kind)
			require.Equal(t, []store.Merged{{Text: incoming.Text, Agent: "codex", At: p.MergedFrom[0].At}}, p.MergedFrom)
			require.Equal(t, "existing", p.Detail["canonical"])
			require.Equal(t, e.Pinned, p.Pinned)
		}
	})
	t.Run("an identical text only counts", func(t *testing.T) {
		t.Parallel()
		same := incoming
		same.Text = "  we USE pnpm   here"
		p := foldParams(existing, same, 1, rule)
		require.Nil(t, p.Replacement)
		require.Equal(t, existing.MergedFrom, p.MergedFrom)
		require.Equal(t, 2, p.DedupedCount)
	})
	t.Run("merged_from keeps the newest", func(t *testing.T) {
		t.Parallel()
		full := existing
		full.MergedFrom = []store.Merged{{Text: "one"}, {Text: "two"}}
		p := foldParams(full, incoming, 0.95, rule)
		require.Equal(t, []string{"two", "This repo uses pnpm"}, []string{p.MergedFrom[0].Text, p.MergedFrom[1].Text})
	})
}

func TestFoldTarget(t *testing.T) {
	t.Parallel()
	n := func(text string, sim float64) store.Neighbour {
		return store.Neighbour{Memory: store.Memory{ID: uuid.Must(uuid.NewV7()), Text: text}, Similarity: sim}
	}
	sibling, twin, far := n("api-web runs 28 replicas", 0.99), n("billing-web has 16 replicas", 0.97), n("billing-web runs 16 pods", 0.5)
	got, ok := foldTarget([]store.Neighbour{sibling, twin, far}, "billing-web runs 16 replicas", 0.9, false)
	require.True(t, ok)
	require.Equal(t, twin.ID, got.ID, "the vetoed nearest is skipped, the next one takes the fold")
	_, ok = foldTarget([]store.Neighbour{sibling, far}, "billing-web runs 16 replicas", 0.9, false)
	require.False(t, ok, "below the threshold nothing folds")
	_, ok = foldTarget(nil, "x", 0.9, false)
	require.False(t, ok)
}

type foldBundle struct {
	store *pgstore.Store
	rule  FoldRule
}

// setupFold is a fresh store for FoldOrInsert with the suite's synthetic vectors.
func setupFold(t *testing.T) foldBundle {
	t.Helper()
	pool, _ := testdb.Migrated(t)
	s := pgstore.New(pool)
	require.NoError(t, s.EnsureVectorIndex(context.Background(), storetest.Embedder, storetest.Dims))
	return foldBundle{store: s, rule: FoldRule{Threshold: 0.9, MergedFromMax: 3}}
}

// write folds w with every live memory of its scope as a candidate: these tests are about the
// policy, not about which memories the lexical index offers (TestStoreFoldsThroughLexicalCandidates).
func (b foldBundle) write(t *testing.T, w store.Write) WriteResult {
	t.Helper()
	live, err := b.store.List(context.Background(), store.ListQuery{Scopes: []store.ScopeRef{w.Ref()}, Limit: 1000})
	require.NoError(t, err)
	ids := make([]uuid.UUID, len(live))
	for i, m := range live {
		ids[i] = m.ID
	}
	res, err := FoldOrInsert(context.Background(), b.store, w, b.rule, ids)
	require.NoError(t, err)
	return res
}

func TestFoldOrInsertFoldsExactDuplicatesEvenWithFoldingOff(t *testing.T) {
	t.Parallel()
	b := setupFold(t)
	first := b.write(t, storetest.NewWrite("p", "Use pnpm, not npm.", storetest.Vec(1, 0)))
	b.rule.Threshold = -1
	second := b.write(t, storetest.NewWrite("p", "use   PNPM, not npm.", storetest.Vec(5, 0)))
	require.True(t, second.Folded)
	require.True(t, second.Exact)
	require.Equal(t, first.Memory.ID, second.Memory.ID)
	require.Equal(t, 1, second.Memory.DedupedCount)
	require.Empty(t, second.Memory.MergedFrom)
	require.Equal(t, "Use pnpm, not npm.", second.Memory.Text)
}

func TestFoldOrInsertFoldsNearDuplicatesLosslessly(t *testing.T) {
	t.Parallel()
	b := setupFold(t)
	ctx := context.Background()
	first := b.write(t, storetest.NewWrite("p", "We use pnpm here", storetest.Vec(2, 0)))
	second := b.write(t, storetest.NewWrite("p", "This repo uses pnpm.", storetest.Vec(2, 0.1)))
	require.True(t, second.Folded)
	require.False(t, second.Exact)
	require.InDelta(t, math.Cos(0.1), second.Similarity, 1e-4)
	require.Equal(t, first.Memory.ID, second.Memory.ID)
	got, err := b.store.Get(ctx, first.Memory.ID)
	require.NoError(t, err)
	require.Equal(t, "This repo uses pnpm.", got.Text, "the well-formed text is canonical")
	require.Equal(t, 1, got.DedupedCount)
	require.Len(t, got.MergedFrom, 1)
	require.Equal(t, "We use pnpm here", got.MergedFrom[0].Text)
	h, err := b.store.History(ctx, got.ID)
	require.NoError(t, err)
	require.Len(t, h, 2)
	require.Equal(t, store.EventFold, h[1].Event)
	require.Equal(t, "We use pnpm here", *h[1].BeforeText)
	require.Equal(t, "This repo uses pnpm.", *h[1].AfterText)
	require.Equal(t, "incoming", h[1].Detail["canonical"])

	// The row now carries the canonical text's vector: a write near it folds there.
	third := b.write(t, storetest.NewWrite("p", "pnpm is what this repo uses", storetest.Vec(2, 0.12)))
	require.True(t, third.Folded)
	require.InDelta(t, math.Cos(0.02), third.Similarity, 1e-4)
	require.Equal(t, "This repo uses pnpm.", third.Memory.Text, "a fragment written later does not replace a sentence")
}

// TestFoldKeepsTheBetterWording: "We use npm to install dependencies." folded into by the
// sloppier "we use npm to install dependencies in this repository" keeps its text (issue 30);
// the sloppier one is in merged_from.
func TestFoldKeepsTheBetterWording(t *testing.T) {
	t.Parallel()
	b := setupFold(t)
	first := b.write(t, storetest.NewWrite("p", "We use npm to install dependencies.", storetest.Vec(4, 0)))
	second := b.write(t, storetest.NewWrite("p", "we use npm to install dependencies in this repository", storetest.Vec(4, 0.05)))
	require.True(t, second.Folded)
	require.Equal(t, first.Memory.ID, second.Memory.ID)
	require.Equal(t, "We use npm to install dependencies.", second.Memory.Text)
	require.Equal(t, "we use npm to install dependencies in this repository", second.Memory.MergedFrom[0].Text)
}

func TestFoldOrInsertKeepsAPinnedOrMoreConfidentText(t *testing.T) {
	t.Parallel()
	b := setupFold(t)
	w := storetest.NewWrite("p", "Deploys go through ArgoCD", storetest.Vec(3, 0))
	w.Confidence = 0.95
	first := b.write(t, w)
	second := b.write(t, storetest.NewWrite("p", "deploys always go through argocd.", storetest.Vec(3, 0.05)))
	require.True(t, second.Folded)
	require.Equal(t, first.Memory.ID, second.Memory.ID)
	require.Equal(t, "Deploys go through ArgoCD", second.Memory.Text)
	require.Equal(t, "deploys always go through argocd.", second.Memory.MergedFrom[0].Text)
}

func TestFoldOrInsertSkipsNeighboursThatNameOtherThings(t *testing.T) {
	t.Parallel()
	b := setupFold(t)
	b.rule.Threshold = 0.95
	sibling := b.write(t, storetest.NewWrite("p", "api-web runs 28 replicas", storetest.Vec(14, 0.02)))
	twin := b.write(t, storetest.NewWrite("p", "billing-web has 16 replicas", storetest.Vec(14, 0.2)))
	require.False(t, twin.Folded)
	res := b.write(t, storetest.NewWrite("p", "billing-web runs 16 replicas", storetest.Vec(14, 0.05)))
	require.True(t, res.Folded, "the vetoed nearest neighbour is skipped, the next one folds")
	require.Equal(t, twin.Memory.ID, res.Memory.ID)
	res = b.write(t, storetest.NewWrite("p", "search-web runs 4 replicas", storetest.Vec(14, 0.03)))
	require.False(t, res.Folded, "every candidate names other things: insert")
	require.NotEqual(t, sibling.Memory.ID, res.Memory.ID)
}

// TestFoldOrInsertKeepsNearMissesApart: neighbours whose vectors are all but identical, which
// the similarity threshold and the specifics guard alone folded, stay apart when they state
// different things.
func TestFoldOrInsertKeepsNearMissesApart(t *testing.T) {
	t.Parallel()
	b := setupFold(t)
	for i, p := range [][2]string{
		{"[7:48 pm on 21 May, 2023] Tim: Sounds good! What challenges have you encountered during your pre-season training?",
			"[7:48 pm on 21 May, 2023] John: Fitting into the new team's style of play was a challenge during pre-season."},
		{"Use the staging database for load tests.", "Never use the staging database for load tests."},
		{"The billing worker retries failed jobs 4 times.", "The scheduler worker retries failed jobs 4 times."},
	} {
		first := b.write(t, storetest.NewWrite("p", p[0], storetest.Vec(20+i, 0)))
		second := b.write(t, storetest.NewWrite("p", p[1], storetest.Vec(20+i, 0.01)))
		require.False(t, second.Folded, "%q folded into %q", p[1], p[0])
		require.NotEqual(t, first.Memory.ID, second.Memory.ID)
		require.Greater(t, second.Similarity, b.rule.Threshold, "the embedder alone would have folded it")
	}
}

func TestFoldOrInsertBoundsMergedFrom(t *testing.T) {
	t.Parallel()
	b := setupFold(t)
	var id uuid.UUID
	for i := range 6 { // six texts of one statement: "variant", "variant!", "variant!!", ...
		id = b.write(t, storetest.NewWrite("p", "variant"+strings.Repeat("!", i), storetest.Vec(4, 0.01*float64(i)))).Memory.ID
	}
	got, err := b.store.Get(context.Background(), id)
	require.NoError(t, err)
	require.Equal(t, 5, got.DedupedCount)
	require.Equal(t, "variant", got.Text, "no later text is better: the first stays")
	require.Len(t, got.MergedFrom, 3)
	require.Equal(t, "variant!!!!!", got.MergedFrom[2].Text)
}

func TestFoldOrInsertInsertsDistinctFactsAndWithFoldingOff(t *testing.T) {
	t.Parallel()
	b := setupFold(t)
	a := b.write(t, storetest.NewWrite("p", "pnpm for installs", storetest.Vec(5, 0)))
	other := b.write(t, storetest.NewWrite("p", "lockfile is committed", storetest.Vec(6, 0)))
	require.False(t, other.Folded)
	require.NotEqual(t, a.Memory.ID, other.Memory.ID)
	b.rule.Threshold = -1
	off := b.write(t, storetest.NewWrite("p", "pnpm for all installs", storetest.Vec(5, 0.01)))
	require.False(t, off.Folded, "a negative threshold turns semantic folding off")
}

func TestFoldOrInsertNeverCrossesScopes(t *testing.T) {
	t.Parallel()
	b := setupFold(t)
	a := b.write(t, storetest.NewWrite("project-a", "same fact", storetest.Vec(7, 0)))
	other := b.write(t, storetest.NewWrite("project-b", "same fact", storetest.Vec(7, 0)))
	require.False(t, other.Folded)
	require.NotEqual(t, a.Memory.ID, other.Memory.ID)
	g := storetest.NewWrite("", "same fact", storetest.Vec(7, 0))
	g.Scope = store.ScopeGlobal
	require.False(t, b.write(t, g).Folded)
}

// TestFoldOrInsertZeroVectors: text the embedder has no tokens for (emoji only) gets the zero
// vector. It is stored and folds only with an identical text, wherever it lands, and no NaN
// reaches a result or the history.
func TestFoldOrInsertZeroVectors(t *testing.T) {
	t.Parallel()
	b := setupFold(t)
	ctx := context.Background()
	fact := b.write(t, storetest.NewWrite("p", "deploys go through argo", storetest.Vec(6, 0)))
	party := b.write(t, storetest.NewWrite("p", "🎉🎉🎉", storetest.ZeroVec()))
	require.False(t, party.Folded)
	require.Zero(t, party.Similarity)
	again := b.write(t, storetest.NewWrite("p", "🎉🎉🎉", storetest.ZeroVec()))
	require.True(t, again.Exact)
	require.Equal(t, party.Memory.ID, again.Memory.ID)
	rocket := b.write(t, storetest.NewWrite("p", "🚀", storetest.ZeroVec()))
	require.False(t, rocket.Folded, "zero vectors are not near each other")
	near := b.write(t, storetest.NewWrite("p", "deploys go via argo", storetest.Vec(6, 0.05)))
	require.True(t, near.Folded)
	require.Equal(t, fact.Memory.ID, near.Memory.ID)

	// A project whose first memory has a zero vector takes later writes as any other.
	first := b.write(t, storetest.NewWrite("fresh", "✨", storetest.ZeroVec()))
	later := b.write(t, storetest.NewWrite("fresh", "CI runs on Buildkite", storetest.Vec(8, 0)))
	require.NotEqual(t, first.Memory.ID, later.Memory.ID)
	require.True(t, b.write(t, storetest.NewWrite("fresh", "CI runs on buildkite agents", storetest.Vec(8, 0.05))).Folded)

	for _, id := range []uuid.UUID{party.Memory.ID, fact.Memory.ID, first.Memory.ID, later.Memory.ID} {
		h, err := b.store.History(ctx, id)
		require.NoError(t, err)
		_, err = json.Marshal(h)
		require.NoError(t, err, "history encodes: no NaN in it")
	}
}

func TestFoldOrInsertConcurrentWritesOfOneFactEndInOneRow(t *testing.T) {
	t.Parallel()
	b := setupFold(t)
	const writers = 12
	var wg sync.WaitGroup
	ids := make([]uuid.UUID, writers)
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			// Half identical text, half paraphrases with near-identical vectors.
			text := "tests need TZ=UTC"
			if i%2 == 1 {
				text = "the tests need TZ=UTC set" + strings.Repeat("!", i)
			}
			// No candidates: none exists when the writers start, and the one the first of them
			// writes reaches the others through the lookup's newest rows.
			res, err := FoldOrInsert(context.Background(), b.store, storetest.NewWrite("p", text, storetest.Vec(8, 0.001*float64(i))), b.rule, nil)
			ids[i], errs[i] = res.Memory.ID, err
		})
	}
	wg.Wait()
	for i := range writers {
		require.NoError(t, errs[i])
		require.Equal(t, ids[0], ids[i], "every writer got the same canonical id")
	}
	live, err := b.store.List(context.Background(), store.ListQuery{Scopes: []store.ScopeRef{store.Project("p")}, Limit: 100})
	require.NoError(t, err)
	require.Len(t, live, 1)
	require.Equal(t, writers-1, live[0].DedupedCount)
}
