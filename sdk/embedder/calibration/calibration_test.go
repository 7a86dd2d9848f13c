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

{"a":"x","b":"z","same":false}
`))
	require.NoError(t, err)
	require.Equal(t, []calibration.Pair{{A: "x", B: "y", Same: true}, {A: "x", B: "z"}}, pairs)

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
	require.Equal(t, calibration.Rates{FalseFold: 0.25, MissedFold: 0.5, Paraphrases: 2, Distinct: 4}, r)

	_, err = calibration.RatesAt(scored[:2], 0.7)
	require.Error(t, err)
}

func TestCosine(t *testing.T) {
	t.Parallel()
	require.InDelta(t, 1.0, calibration.Cosine([]float32{1, 2}, []float32{2, 4}), 1e-9)
	require.InDelta(t, 0.0, calibration.Cosine([]float32{1, 0}, []float32{0, 1}), 1e-9)
	require.Zero(t, calibration.Cosine([]float32{0, 0}, []float32{1, 1}))
	require.Zero(t, calibration.Cosine([]float32{1}, []float32{1, 1}))
}
