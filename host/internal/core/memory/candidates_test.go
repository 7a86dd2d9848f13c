package memory

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/lexical"
	"github.com/memhost/memhost/host/internal/core/rank"
	"github.com/memhost/memhost/host/internal/core/store"
)

// TestLoadBestKeepsTheTopResults checks the pruning against reading every candidate: for random
// pools whose rows score anywhere up to their bound (some not shown at all), the first want
// hits are the same, and pools with a clear head are decided by the first round.
func TestLoadBestKeepsTheTopResults(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 420))
	pruned := 0
	for trial := range 400 {
		n := 1 + r.IntN(200)
		want := 10
		if trial%5 == 0 {
			want = 1 + r.IntN(30)
		}
		var lex []lexical.Hit
		var ann []store.VectorHit
		for range n {
			id := uuid.New()
			switch r.IntN(3) {
			case 0:
				lex = append(lex, lexical.Hit{ID: id, Score: r.Float64() * 10, Coverage: r.Float64()})
			case 1:
				ann = append(ann, store.VectorHit{ID: id, Similarity: r.Float64()})
			default:
				lex = append(lex, lexical.Hit{ID: id, Score: r.Float64() * 10, Coverage: r.Float64()})
				ann = append(ann, store.VectorHit{ID: id, Similarity: r.Float64()})
			}
		}
		hybrid := []rank.Hybrid{rank.Lexical, rank.HybridLexical, rank.HybridSemantic, {VectorWeight: 0.4, Floor: 0.3}}[trial%4]
		cands := newCandidates(lex, ann, hybrid)
		bound := map[uuid.UUID]float64{}
		for _, c := range cands {
			bound[c.id] = c.bound
		}
		// A row's score: its bound times a quality factor in [0.5, 1], or hidden.
		actual := map[uuid.UUID]float64{}
		for id, b := range bound {
			if r.IntN(10) == 0 {
				actual[id] = -1
			} else {
				actual[id] = b * (0.5 + 0.5*r.Float64())
			}
		}
		read := 0
		get := func(_ context.Context, ids []uuid.UUID) ([]store.Loaded, error) {
			read += len(ids)
			out := make([]store.Loaded, len(ids))
			for i, id := range ids {
				out[i].ID = id
			}
			return out, nil
		}
		score := func(l store.Loaded, _ *float64) (SearchHit, bool) {
			if actual[l.ID] < 0 {
				return SearchHit{}, false
			}
			var h SearchHit
			h.ID, h.Score = l.ID, actual[l.ID]
			return h, true
		}
		l := newLoader(want, get, score)
		require.NoError(t, l.load(context.Background(), cands))
		got := l.hits
		var all []SearchHit
		for id, s := range actual {
			if s >= 0 {
				var h SearchHit
				h.ID, h.Score = id, s
				all = append(all, h)
			}
		}
		require.Equal(t, top(all, want), top(got, want), "trial %d", trial)
		if read < len(cands) {
			pruned++
		}
	}
	require.Greater(t, pruned, 100, "most large pools are decided without reading every row")
}

// TestVectorLookupRunsOnlyWhenItCanChangeTheResult checks the deferred nearest-neighbour
// lookup against running it always: for random universes of memories (a BM25 score, a
// cosine, a quality factor, some hidden), the lexical hits are read first and the vector
// path's hits only when needsVector says a memory only they hold could rank, and the first
// want results equal those of reading both paths' candidates. With the floor's weight most
// lookups are skipped; with a semantic weight most run.
func TestVectorLookupRunsOnlyWhenItCanChangeTheResult(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 3))
	skipped := map[rank.Hybrid]int{}
	for trial := range 600 {
		hybrid := []rank.Hybrid{rank.HybridLexical, rank.HybridSemantic, rank.Lexical, {VectorWeight: 0.4, Floor: 0.3}}[trial%4]
		want := 10
		type mem struct {
			bm25, cosine, quality float64
			hidden                bool
		}
		universe := map[uuid.UUID]mem{}
		for range 1 + r.IntN(300) {
			m := mem{cosine: r.Float64(), quality: 0.5 + 0.5*r.Float64(), hidden: r.IntN(12) == 0}
			if r.IntN(3) > 0 {
				m.bm25 = r.Float64() * 10
			}
			universe[uuid.New()] = m
		}
		// Each path's pool holds its best 40.
		var lex []lexical.Hit
		var ann []store.VectorHit
		for id, m := range universe {
			if m.bm25 > 0 {
				lex = append(lex, lexical.Hit{ID: id, Score: m.bm25, Coverage: 1})
			}
			ann = append(ann, store.VectorHit{ID: id, Similarity: m.cosine})
		}
		slices.SortFunc(lex, func(a, b lexical.Hit) int { return cmp.Compare(b.Score, a.Score) })
		slices.SortFunc(ann, func(a, b store.VectorHit) int { return cmp.Compare(b.Similarity, a.Similarity) })
		lex, ann = lex[:min(40, len(lex))], ann[:min(40, len(ann))]

		get := func(_ context.Context, ids []uuid.UUID) ([]store.Loaded, error) {
			out := make([]store.Loaded, len(ids))
			for i, id := range ids {
				cos := universe[id].cosine
				out[i].ID, out[i].Similarity = id, &cos
			}
			return out, nil
		}
		score := func(l store.Loaded, lexical *float64) (SearchHit, bool) {
			m := universe[l.ID]
			if m.hidden {
				return SearchHit{}, false
			}
			var h SearchHit
			h.ID, h.Score = l.ID, hybrid.Fuse(l.Similarity, lexical)*m.quality
			return h, true
		}
		always := newLoader(want, get, score)
		require.NoError(t, always.load(context.Background(), newCandidates(lex, ann, hybrid)))

		deferred := newLoader(want, get, score)
		require.NoError(t, deferred.load(context.Background(), newCandidates(lex, nil, hybrid)))
		if deferred.needsVector(hybrid) {
			require.NoError(t, deferred.load(context.Background(), newCandidates(lex, ann, hybrid)))
		} else {
			skipped[hybrid]++
		}
		require.Equal(t, top(always.hits, want), top(deferred.hits, want), "trial %d, hybrid %+v", trial, hybrid)
	}
	require.Greater(t, skipped[rank.HybridLexical], 90, "the floor's lookups are mostly skipped (of 150)")
	require.Less(t, skipped[rank.HybridSemantic], 60, "a semantic embedder's lookups mostly run (of 150)")
}

func top(hits []SearchHit, n int) []uuid.UUID {
	hits = slices.Clone(hits)
	slices.SortFunc(hits, func(a, b SearchHit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), slices.Compare(a.ID[:], b.ID[:]))
	})
	out := make([]uuid.UUID, 0, n)
	for _, h := range hits[:min(n, len(hits))] {
		out = append(out, h.ID)
	}
	return out
}

// TestLoadReadsNothingThatCannotRank: once what was read beats every bound (the vector path's
// candidates after a lookup, typically), load makes no further round trip.
func TestLoadReadsNothingThatCannotRank(t *testing.T) {
	t.Parallel()
	calls := 0
	get := func(_ context.Context, ids []uuid.UUID) ([]store.Loaded, error) {
		calls++
		out := make([]store.Loaded, len(ids))
		for i, id := range ids {
			out[i].ID = id
		}
		return out, nil
	}
	score := func(l store.Loaded, lex *float64) (SearchHit, bool) {
		var h SearchHit
		h.ID, h.Score = l.ID, rank.HybridLexical.Fuse(nil, lex)
		return h, true
	}
	var lex []lexical.Hit
	for i := range 3 {
		lex = append(lex, lexical.Hit{ID: uuid.New(), Score: float64(10 - i), Coverage: 1})
	}
	l := newLoader(2, get, score)
	require.NoError(t, l.load(context.Background(), newCandidates(lex, nil, rank.HybridLexical)))
	require.Equal(t, 1, calls)
	ann := []store.VectorHit{{ID: uuid.New(), Similarity: 0.9}, {ID: uuid.New(), Similarity: 0.5}}
	require.NoError(t, l.load(context.Background(), newCandidates(lex, ann, rank.HybridLexical)))
	require.Equal(t, 1, calls, "the vector-only candidates score at most 0.09; the second best read scores 0.81")
	require.Len(t, l.hits, 3)
}
