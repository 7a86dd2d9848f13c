package bench_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/bench"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// TestTaskScopedBannersBringTheNeededFacts (issue 28, "Done when"): in projects of hundreds of
// facts, the task-scoped banner brings the facts a task needs to the CLI in more tasks than the
// query-less banner at the same budget, loses none the query-less one had, and adds nothing for
// a task about nothing in the project. make bench runs it on every project with a floor sweep.
func TestTaskScopedBannersBringTheNeededFacts(t *testing.T) {
	t.Parallel()
	set, err := bench.LoadRetrievalSet(retrievalDir)
	require.NoError(t, err)
	set = set.Only("github.com/vitejs/vite", "github.com/cli/cli")
	irrelevant, err := bench.LoadIrrelevantTasks("testdata/selection/irrelevant.json")
	require.NoError(t, err)
	pool, _ := testdb.Migrated(t)
	emb := embeddertest.Launch(t, testplugins.BM25(t))

	res, err := bench.Selection(t.Context(), pool, emb, nil, set, bench.SelectionOptions{Filler: 300, Seed: 28,
		Floors: []float64{brain.DefaultTaskFloor}, Irrelevant: irrelevant})
	require.NoError(t, err)
	c := res.Configured
	t.Logf("%d tasks: query-less %d, task-scoped %d; lost %d; %d of %d unrelated tasks given a section", res.Tasks["all"],
		res.QueryLess["all"], c.Scoped["all"], c.Lost, c.Added, len(irrelevant)*res.Projects)
	require.Equal(t, 2, res.Projects)
	require.Greater(t, c.Scoped["all"], 2*res.QueryLess["all"], "task scoping at least doubles the tasks that get their facts")
	require.Zero(t, c.Added, "an unrelated task adds nothing")
	require.LessOrEqual(t, c.Lost, res.Tasks["all"]/50)
}
