package memory

import (
	"cmp"
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/lexical"
	"github.com/memhost/memhost/host/internal/store"
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
		weight := []float64{0, 0.1, 0.6}[trial%3]
		cands := newCandidates(lex, ann, weight)
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
		got, err := loadBest(context.Background(), cands, want, get, score)
		require.NoError(t, err)
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
