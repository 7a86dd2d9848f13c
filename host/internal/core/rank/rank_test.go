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
	require.InDelta(t, 0.7, rank.Fuse(&c, &l, rank.VectorWeightSemantic), 1e-9)
	require.InDelta(t, 0.3, rank.Fuse(&c, nil, rank.VectorWeightSemantic), 1e-9)
	require.InDelta(t, 0.4, rank.Fuse(nil, &l, rank.VectorWeightSemantic), 1e-9)
	require.InDelta(t, 0.95, rank.Fuse(&c, &l, rank.VectorWeightLexical), 1e-9)
	require.InDelta(t, 1.0, rank.Fuse(nil, &l, 0), 1e-9, "without a vector path the lexical score is all of relevance")
	require.Zero(t, rank.Fuse(nil, nil, rank.VectorWeightSemantic))
	require.InDelta(t, 0.2, rank.NormalizeBM25(7, 7, 0.2), 1e-9)
	require.InDelta(t, 0.5, rank.NormalizeBM25(3.5, 7, 1), 1e-9)
	require.Zero(t, rank.NormalizeBM25(1, 0, 1))
}

// TestNaNNeverLeaks: a NaN signal (the cosine of a zero vector) is treated as unknown, so no
// score, relevance or normalised BM25 value is ever NaN (JSON cannot encode it).
func TestNaNNeverLeaks(t *testing.T) {
	t.Parallel()
	nan, lex, cos := math.NaN(), 0.5, 0.5
	w := rank.VectorWeightSemantic
	require.Equal(t, rank.Fuse(nil, &lex, w), rank.Fuse(&nan, &lex, w), "a NaN cosine is unknown")
	require.Equal(t, rank.Fuse(&cos, nil, w), rank.Fuse(&cos, &nan, w), "a NaN lexical score is unknown")
	require.Zero(t, rank.Fuse(&nan, &nan, w))
	require.False(t, math.IsNaN(rank.Fuse(&cos, &lex, nan)))
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
