package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/embedder/calibration"
)

// TestRenderDenseRounds: each width is a section of the shared round's form, followed by the
// re-embed throughput and the fold calibration, with a width no threshold calibrates listed
// among the misses; a run of the dense rounds alone is their sections without the file header.
func TestRenderDenseRounds(t *testing.T) {
	t.Parallel()
	fast := Latency{N: 10, P50: 2 * time.Millisecond, P99: 9 * time.Millisecond}
	shared := Shared{
		Layout:  SharedLayout{Total: 1000, Sizes: []int{100, 500, 300, 100}, GraphMinRows: 1000, ByClass: map[string]int{classExact: 3, classLarge: 1}, Graphs: 1},
		Classes: []SharedClass{{Class: classLarge, Projects: 1, MinRows: 100, MaxRows: 100, Store: fast, Search: fast}},
		All:     SharedClass{Class: "all", Store: fast, Search: fast}, GraphBuild: 3 * time.Second,
	}
	calibrated := Dense{Embedder: embedder.Info{Name: "densefake-v1-768", Dimensions: 768}, Shared: shared,
		Reembed: ReembedBench{Project: "p", Rows: 1000, Took: 2 * time.Second, Drained: 1000, DrainTime: 4 * time.Second, Indexed: 600, IndexedIn: time.Second,
			IdleStore: fast, IdleSearch: fast, BusyStore: fast, BusySearch: Latency{N: 10, P50: 3 * time.Millisecond, P99: 18 * time.Millisecond}},
		Fold: DenseFold{Pairs: 50, Calibrated: 0.85, Sweep: []DenseFoldRow{
			{Threshold: 0.80, Cosine: calibration.Rates{FalseFold: 0.08, MissedFold: 0.05}, Rule: calibration.Rates{FalseFold: 0.01, MissedFold: 0.1}},
			{Threshold: 0.85, Cosine: calibration.Rates{FalseFold: 0.04, MissedFold: 0.1}, Rule: calibration.Rates{FalseFold: 0.004, MissedFold: 0.2}},
		}}}
	none := calibrated
	none.Embedder = embedder.Info{Name: "densefake-v1-1024", Dimensions: 1024}
	none.Fold = DenseFold{Pairs: 50, Sweep: []DenseFoldRow{{Threshold: 0.99, Rule: calibration.Rates{FalseFold: 0.02}}}}
	none.Reembed.BusySearch = fast

	md := renderOnlyDense(Report{Config: Config{OnlyDense: true}, Dense: []Dense{calibrated, none}})
	require.True(t, strings.HasPrefix(md, "\n## Dense vectors, 768 dimensions (densefake-v1-768): 1000 memories in 4 projects, timed at the MCP client\n"), md[:120])
	require.NotContains(t, md, "# Benchmarks")
	require.Contains(t, md, "## Dense vectors, 1024 dimensions (densefake-v1-1024)")
	require.Contains(t, md, "| scope graphs built (IndexScopes, m=16, ef_construction=128) | 1 in 3s |")
	require.Contains(t, md, "| re-embed of p (one job run, batches of 64 through the plugin) | 1000 memories in 2s: 500/s |")
	require.Contains(t, md, "| - then the indexer into the project's graph (the host's beside the calls for up to 1m0s: 600 rows; then one alone) | 1000, 250/s (4s) |")
	require.Contains(t, md, "| agents' memory_store p99 at the MCP client: idle (10) / while the host re-embeds and indexes (10) | 9.00 ms / 9.00 ms = 1.00x (target <= 1.5x: PASS) |")
	require.Contains(t, md, "| agents' memory_search p99: idle / while the host re-embeds and indexes | 9.00 ms / 18.00 ms = 2.00x (target <= 1.5x: **MISS**) |")
	require.Contains(t, md, "- Dense 768: a re-embed moved agents' p99 by 1.00x (store) and 2.00x (search) against the 1.5x target")
	require.Contains(t, md, "stay <= 0.5% | 0.85 (write path: 0.40% false / 20.0% missed; cosine alone: 4.0% false / 10.0% missed) |")
	require.Contains(t, md, "| - false / missed folds by threshold: cosine alone (write path) | 0.80: 8.0% / 5.0% (1.00% / 10.0%); 0.85: 4.0% / 10.0% (0.40% / 20.0%) |")
	require.Contains(t, md, "- Dense 1024: no fold threshold from 0.50 to 0.99 keeps the write path's false folds within 0.5%.")
	require.Contains(t, md, "| a re-embed (dense 768-d) moves agents' store and search p99 <= 1.5x | store 9.00 ms -> 9.00 ms = 1.00x, search 9.00 ms -> 18.00 ms = 2.00x | **MISS** |")

	slow := calibrated
	slow.Shared.All.Search = Latency{N: 10, P50: 30 * time.Millisecond, P99: 90 * time.Millisecond}
	require.Contains(t, renderOnlyDense(Report{Dense: []Dense{slow}}), "- Dense 768: Shared layout, all projects: store p50 2.00 ms")

	full := Render(Report{Shared: &shared, Dense: []Dense{calibrated}})
	require.Contains(t, full, "## Shared database: 1000 memories in 4 projects")
	require.Contains(t, full, "## Dense vectors, 768 dimensions (densefake-v1-768)")
}
