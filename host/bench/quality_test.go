package bench_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/bench"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// recallFloor is the distractor-free recall@10 measured when the quality set was written (0.857)
// (see docs/benchmarks.md), minus a margin, so a ranking or tokenizer change that loses
// answers fails `make test` while harmless reorderings do not.
const recallFloor = 0.80

func TestRetrievalQualityFloor(t *testing.T) {
	t.Parallel()
	set, err := bench.LoadQualitySet("testdata/quality.json")
	require.NoError(t, err)
	pool, _ := testdb.Migrated(t)
	emb := embeddertest.Launch(t, testplugins.BM25(t))

	res, err := bench.Quality(t.Context(), pool, emb, nil, set, bench.QualityOptions{})
	require.NoError(t, err)
	t.Logf("recall@5 %.3f recall@10 %.3f MRR %.3f misses %q", res.RecallAt5, res.RecallAt10, res.MRR, res.Misses)
	require.Zero(t, res.Folded, "the quality facts are distinct; a fold means the set or the fold threshold changed")
	require.GreaterOrEqual(t, res.RecallAt10, recallFloor)
}
