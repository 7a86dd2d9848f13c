package bench_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/bench"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/embeddertest/openaifake"
)

// leaning is the fake runtime's model in process, its vectors leaning on a shared direction as
// a real model's do.
type leaning struct{ srv *openaifake.Server }

func (l leaning) Describe(context.Context) (embedder.Info, error) {
	return embedder.Info{Name: "leaning-768", Dimensions: 768, MaxBatch: 64, MaxInputBytes: 1 << 16, SuggestedFoldThreshold: 0.92}, nil
}

func (l leaning) Embed(_ context.Context, _ embedder.Purpose, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = l.srv.Embed(t)
	}
	return out, nil
}

func (leaning) Health(context.Context) error { return nil }

// TestCalibrationMeasuresAnEmbeddersSettings: on two projects of the retrieval set, the
// calibration round reads the floor the host measures (near the .4 this model's unrelated texts
// reach), sweeps the vector weight and picks the one that ranks the dev half's answers best,
// finds a fold threshold, and renders the configuration that applies them.
func TestCalibrationMeasuresAnEmbeddersSettings(t *testing.T) {
	t.Parallel()
	set, err := bench.LoadRetrievalSet(retrievalDir)
	require.NoError(t, err)
	var small bench.RetrievalSet
	for _, p := range set.Projects {
		if p.Role == bench.RoleEvaluated && len(small.Projects) < 2 {
			small.Projects = append(small.Projects, p)
		}
	}
	pool, _ := testdb.Migrated(t)
	srv := openaifake.Start(t, openaifake.Options{Shared: 0.4})
	c, err := bench.Calibrate(context.Background(), pool, leaning{srv}, nil, small)
	require.NoError(t, err)
	require.Greater(t, c.Floor, 0.4, "above what unrelated texts share")
	require.Less(t, c.Floor, 0.75)
	require.Len(t, c.Sweep, 10)
	require.Equal(t, 0.6, c.Default)
	best := c.Sweep[0]
	for _, r := range c.Sweep {
		if r.Weight == c.Weight {
			best = r
		}
	}
	for _, r := range c.Sweep {
		require.LessOrEqual(t, r.Dev.MRR.Mean, best.Dev.MRR.Mean+0.001, "%.1f beats the chosen %.1f", r.Weight, c.Weight)
	}
	require.Positive(t, c.Fold.Pairs)
	require.Greater(t, c.NonsenseBefore, 5.0, "without a floor, nonsense finds most of the top 10")
	require.Less(t, c.NonsenseAfter, 1.0, "with the floor, next to nothing")

	md := bench.RenderCalibration(c)
	require.Contains(t, md, "## Calibration of leaning-768 (768 dimensions)")
	require.Contains(t, md, "[embedder.vector_weights]\n\"leaning-768\" = ")
	require.Contains(t, md, "[embedder.relevance_floors]\n\"leaning-768\" = ")
	require.True(t, strings.Contains(md, "(chosen)"))
}
