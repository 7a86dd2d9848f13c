package calibration_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/embedder/calibration"
)

func TestReadPairs(t *testing.T) {
	t.Parallel()
	pairs, err := calibration.ReadPairs(strings.NewReader(`{"a":"x","b":"y","same":true}

{"a":"x","b":"z","same":false,"kind":"negation"}
`))
	require.NoError(t, err)
	require.Equal(t, []calibration.Pair{{A: "x", B: "y", Same: true}, {A: "x", B: "z", Kind: "negation"}}, pairs)

	_, err = calibration.ReadPairs(strings.NewReader(`{"a":"x"}`))
	require.ErrorContains(t, err, "line 1")
}

func TestRatesAt(t *testing.T) {
	t.Parallel()
	scored := []calibration.Scored{
		{Pair: calibration.Pair{Same: true}, Cosine: 0.9},
		{Pair: calibration.Pair{Same: true}, Cosine: 0.5},
		{Pair: calibration.Pair{Same: false}, Cosine: 0.7},
		{Pair: calibration.Pair{Same: false}, Cosine: 0.1},
		{Pair: calibration.Pair{Same: false}, Cosine: 0.2},
		{Pair: calibration.Pair{Same: false}, Cosine: 0.3},
	}
	r, err := calibration.RatesAt(scored, 0.7)
	require.NoError(t, err)
	require.Equal(t, calibration.Rates{FalseFold: 0.25, MissedFold: 0.5, Paraphrases: 2, Distinct: 4, FalseFolds: 1, MissedFolds: 1}, r)

	_, err = calibration.RatesAt(scored[:2], 0.7)
	require.Error(t, err)
}

func TestRatesOfAndByKind(t *testing.T) {
	t.Parallel()
	scored := []calibration.Scored{
		{Pair: calibration.Pair{A: "keep", Same: true, Kind: "paraphrase"}, Cosine: 0.9},
		{Pair: calibration.Pair{A: "veto", Same: true, Kind: "paraphrase"}, Cosine: 0.9},
		{Pair: calibration.Pair{A: "keep", Kind: "speaker"}, Cosine: 0.8},
		{Pair: calibration.Pair{A: "veto", Kind: "speaker"}, Cosine: 0.8},
	}
	guarded := func(s calibration.Scored) bool { return s.Cosine >= 0.7 && s.A != "veto" }
	r, err := calibration.RatesOf(scored, guarded)
	require.NoError(t, err)
	require.Equal(t, calibration.Rates{FalseFold: 0.5, MissedFold: 0.5, Paraphrases: 2, Distinct: 2, FalseFolds: 1, MissedFolds: 1}, r)

	byKind := calibration.RatesByKind(scored, guarded)
	require.Equal(t, map[string]calibration.Rates{
		"paraphrase": {MissedFold: 0.5, Paraphrases: 2, MissedFolds: 1},
		"speaker":    {FalseFold: 0.5, Distinct: 2, FalseFolds: 1},
	}, byKind)
}

func TestCosine(t *testing.T) {
	t.Parallel()
	require.InDelta(t, 1.0, calibration.Cosine([]float32{1, 2}, []float32{2, 4}), 1e-9)
	require.InDelta(t, 0.0, calibration.Cosine([]float32{1, 0}, []float32{0, 1}), 1e-9)
	require.Zero(t, calibration.Cosine([]float32{0, 0}, []float32{1, 1}))
	require.Zero(t, calibration.Cosine([]float32{1}, []float32{1, 1}))
}

func TestFloor(t *testing.T) {
	t.Parallel()
	unrelated := make([]float64, 0, 101)
	for i := range 101 {
		unrelated = append(unrelated, 0.4+0.002*float64(i)) // 0.40 .. 0.60, median 0.50
	}
	require.InDelta(t, 0.59, calibration.Floor(unrelated, []float64{0.9, 0.95}), 1e-9, "the 95th percentile of the unrelated")
	require.InDelta(t, 0.55, calibration.Floor(unrelated, []float64{0.6, 0.6}), 1e-9, "held at the midpoint of the two medians")
	require.Zero(t, calibration.Floor(nil, []float64{0.9}))
	require.Zero(t, calibration.Floor([]float64{-0.2, -0.1}, nil), "never below 0")
}
