package rank_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/rank"
)

// TestExplainIsTheScore: the terms the console shows add up to the score the ranker computed,
// which is the documented formula (docs/ranking.md), on random signals in both modes; the
// lexical and vector terms split the base half in the paths' shares of relevance.
func TestExplainIsTheScore(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for range 10000 {
		cos, lex := r.Float64()*1.2-0.1, r.Float64()
		h := []rank.Hybrid{rank.HybridSemantic, rank.HybridLexical, rank.Lexical, {VectorWeight: 0.3, Floor: 0.37}}[r.IntN(4)]
		parts := h.Parts(&cos, &lex)
		s := rank.Signals{HasQuery: r.IntN(2) == 0, Relevance: h.Fuse(&cos, &lex), Importance: r.Float64(),
			Confidence: r.Float64(), HitCount: int64(r.IntN(40)), Pinned: r.IntN(5) == 0,
			Age: time.Duration(r.Int64N(int64(400 * day))), HalfLife: time.Duration(r.Int64N(int64(365*day))) + day}
		base := s.Importance
		if s.HasQuery {
			base = s.Relevance
		}
		q := 0.45*s.Confidence + 0.35*math.Exp2(-float64(s.Age)/float64(s.HalfLife)) + 0.20*(1-math.Exp(-float64(s.HitCount)/5))
		if s.Pinned {
			q = 1
		}
		want := math.Min(math.Max(base, 0), 1) * (0.5 + 0.5*q)
		terms := rank.Explain(s)
		require.InDelta(t, want, terms.Sum(), 1e-12, "%+v", s)
		require.Equal(t, rank.Score(s), terms.Sum())
		require.Equal(t, h.Fuse(&cos, &lex), parts.Vector+parts.Lexical)
		if s.HasQuery {
			split := terms.SplitBase(parts)
			require.InDelta(t, split.Base, split.Lexical+split.Vector, 1e-12, "the two paths make up the base half")
			require.Equal(t, terms.Sum(), split.Sum(), "splitting the base changes no score")
		}
	}
}

// TestExplainPinned: a pinned memory's quality half is all Pinned, none of it confidence,
// recency or usage.
func TestExplainPinned(t *testing.T) {
	t.Parallel()
	terms := rank.Explain(rank.Signals{HasQuery: true, Relevance: 0.8, Confidence: 0.1, Pinned: true, Age: 900 * day, HalfLife: 30 * day})
	require.Equal(t, rank.Terms{Base: 0.4, Pinned: 0.4}, terms)
	require.InDelta(t, 0.8, terms.Sum(), 1e-12)
}
