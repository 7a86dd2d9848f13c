package rank_test

import (
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/rank"
)

const day = 24 * time.Hour

func TestScoreOrdersByRelevanceFirst(t *testing.T) {
	t.Parallel()
	weakButFresh := rank.Signals{HasQuery: true, Relevance: 0.3, Confidence: 1, HitCount: 100, HalfLife: 90 * day}
	strongButOld := rank.Signals{HasQuery: true, Relevance: 0.9, Confidence: 0.2, Age: 720 * day, HalfLife: 90 * day}
	require.Greater(t, rank.Score(strongButOld), rank.Score(weakButFresh))
	require.LessOrEqual(t, rank.Score(weakButFresh), 0.3, "score never exceeds its base")
}

func TestScoreQualityBreaksTies(t *testing.T) {
	t.Parallel()
	base := rank.Signals{HasQuery: true, Relevance: 0.8, Confidence: 0.8, HalfLife: 180 * day}
	older := base
	older.Age = 360 * day
	hit := base
	hit.HitCount = 10
	lessSure := base
	lessSure.Confidence = 0.3
	pinned := older
	pinned.Pinned = true
	require.Greater(t, rank.Score(base), rank.Score(older))
	require.Greater(t, rank.Score(hit), rank.Score(base))
	require.Greater(t, rank.Score(base), rank.Score(lessSure))
	require.InDelta(t, 0.8, rank.Score(pinned), 1e-9, "pinned memories get full quality")
}

func TestScoreWithoutQueryUsesImportance(t *testing.T) {
	t.Parallel()
	important := rank.Signals{Importance: 0.9, Confidence: 0.8, HalfLife: 180 * day, Relevance: 0}
	trivial := rank.Signals{Importance: 0.2, Confidence: 0.8, HalfLife: 180 * day, Relevance: 1}
	require.Greater(t, rank.Score(important), rank.Score(trivial))
}

func TestRecencyHalvesPerHalfLife(t *testing.T) {
	t.Parallel()
	require.InDelta(t, 0.5, rank.Recency(30*day, 30*day), 1e-9)
	require.InDelta(t, 0.25, rank.Recency(60*day, 30*day), 1e-9)
	require.Equal(t, 1.0, rank.Recency(60*day, 0))
}

func TestFuseAndNormalize(t *testing.T) {
	t.Parallel()
	c, l := 0.5, 1.0
	require.InDelta(t, 0.7, rank.HybridSemantic.Fuse(&c, &l), 1e-9)
	require.InDelta(t, 0.3, rank.HybridSemantic.Fuse(&c, nil), 1e-9)
	require.InDelta(t, 0.4, rank.HybridSemantic.Fuse(nil, &l), 1e-9)
	require.InDelta(t, 0.95, rank.HybridLexical.Fuse(&c, &l), 1e-9)
	require.InDelta(t, 1.0, rank.Lexical.Fuse(nil, &l), 1e-9, "without a vector path the lexical score is all of relevance")
	require.Zero(t, rank.HybridSemantic.Fuse(nil, nil))
	require.InDelta(t, 0.2, rank.NormalizeBM25(7, 7, 0.2), 1e-9)
	require.InDelta(t, 0.5, rank.NormalizeBM25(3.5, 7, 1), 1e-9)
	require.Zero(t, rank.NormalizeBM25(1, 0, 1))
}

// TestNaNNeverLeaks: a NaN signal (the cosine of a zero vector) is treated as unknown, so no
// score, relevance or normalised BM25 value is ever NaN (JSON cannot encode it).
func TestNaNNeverLeaks(t *testing.T) {
	t.Parallel()
	nan, lex, cos := math.NaN(), 0.5, 0.5
	h := rank.HybridSemantic
	require.Equal(t, h.Fuse(nil, &lex), h.Fuse(&nan, &lex), "a NaN cosine is unknown")
	require.Equal(t, h.Fuse(&cos, nil), h.Fuse(&cos, &nan), "a NaN lexical score is unknown")
	require.Zero(t, h.Fuse(&nan, &nan))
	require.False(t, math.IsNaN(rank.Hybrid{VectorWeight: nan, Floor: nan}.Fuse(&cos, &lex)))
	require.False(t, math.IsNaN(rank.NormalizeBM25(nan, 1, 1)))
	require.False(t, math.IsNaN(rank.NormalizeBM25(1, nan, 1)))
	require.False(t, math.IsNaN(rank.NormalizeBM25(1, 1, nan)))
	for _, s := range []rank.Signals{
		{HasQuery: true, Relevance: nan, Confidence: 0.8, HalfLife: 90 * day},
		{HasQuery: true, Relevance: 0.5, Confidence: nan, HalfLife: 90 * day},
		{Importance: nan, Confidence: 0.8, HalfLife: 90 * day},
	} {
		score := rank.Score(s)
		require.False(t, math.IsNaN(score), "%+v", s)
		require.GreaterOrEqual(t, score, 0.0)
	}
}

// TestAFloorSilencesWhatUnrelatedTextsReach: under an embedder whose unrelated texts sit at
// cosine .5, a cosine of .5 or less is no evidence and one above it is read on the rest of the
// scale; a memory only the vector path found near the floor does not outrank an exact lexical
// hit (issue 30: "who handles quixlet?" answered with every memory).
func TestAFloorSilencesWhatUnrelatedTextsReach(t *testing.T) {
	t.Parallel()
	h := rank.Hybrid{VectorWeight: 0.6, Floor: 0.5}
	require.Zero(t, h.Similarity(0.5))
	require.Zero(t, h.Similarity(0.3))
	require.InDelta(t, 0.5, h.Similarity(0.75), 1e-9)
	require.InDelta(t, 1.0, h.Similarity(1), 1e-9)
	unrelated, exact, lexicalHit := 0.55, 0.52, 1.0
	require.Greater(t, h.Fuse(&exact, &lexicalHit), h.Fuse(&unrelated, nil))
	require.Less(t, h.Fuse(&unrelated, nil), 0.07, "near the floor a vector says little")
	require.Zero(t, rank.Hybrid{Floor: 1}.Similarity(1), "a floor of 1 leaves nothing above it")
}
