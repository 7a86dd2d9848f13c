package bench_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/bench"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// Bounds on the fold set with the BM25 plugin, on the whole set and on each half. The
// false-fold bound is the target; the missed-fold bounds are the rates measured when
// the statement check learnt synonyms, lead-ins and prohibitions (41% overall, 41% on the dev
// half, 40% held out: most rewordings swap a word that no list can call a synonym without also
// folding a different statement; under 2% of near-exact duplicates) plus a margin, so a change
// that folds less fails too.
const (
	maxFalseFold      = 0.005
	maxMissedFold     = 0.44
	maxMissedVerbatim = 0.03 // exact, near-exact and turn-duplicate pairs
)

// TestFoldRuleOnFoldSet runs the write path's fold decision over the whole fold set with the
// real BM25 plugin: the bound on false folds holds, and duplicates still fold.
func TestFoldRuleOnFoldSet(t *testing.T) {
	t.Parallel()
	emb := embeddertest.Launch(t, testplugins.BM25(t))
	c, err := bench.CalibrateFoldSet(t.Context(), emb)
	require.NoError(t, err)
	for name, half := range map[string]bench.FoldRates{"dev": c.Dev, "test": c.Test} {
		t.Logf("%s half, %d pairs: false-fold %.2f%% (%d), missed-fold %.1f%% (%d)", name, half.Pairs,
			100*half.Rule.FalseFold, half.Rule.FalseFolds, 100*half.Rule.MissedFold, half.Rule.MissedFolds)
		require.GreaterOrEqual(t, half.Pairs, 2000, "%s half", name)
		require.LessOrEqual(t, half.Rule.FalseFold, maxFalseFold, "%s half", name)
		require.LessOrEqual(t, half.Rule.MissedFold, maxMissedFold, "%s half", name)
	}
	r := c.Set
	t.Logf("%d pairs: false-fold %.2f%% (%d), missed-fold %.1f%% (%d); before: %.2f%% / %.1f%%", r.Pairs,
		100*r.Rule.FalseFold, r.Rule.FalseFolds, 100*r.Rule.MissedFold, r.Rule.MissedFolds, 100*r.Guarded.FalseFold, 100*r.Guarded.MissedFold)
	require.GreaterOrEqual(t, r.Pairs, 5000)
	require.LessOrEqual(t, r.Rule.FalseFold, maxFalseFold)
	require.LessOrEqual(t, r.Rule.MissedFold, maxMissedFold)
	verbatim, missed := 0, 0
	for _, k := range r.ByKind {
		switch k.Kind {
		case "exact", "near-exact", "turn-duplicate":
			verbatim += k.Rule.Paraphrases
			missed += k.Rule.MissedFolds
		case "speaker":
			require.Zero(t, k.Rule.FalseFolds, "two speakers at one timestamp never fold")
		}
	}
	require.Positive(t, verbatim)
	require.LessOrEqual(t, float64(missed)/float64(verbatim), maxMissedVerbatim)
}

func TestRenderFoldCalibration(t *testing.T) {
	t.Parallel()
	emb := embeddertest.Launch(t, testplugins.BM25(t))
	c, err := bench.CalibrateFoldSet(t.Context(), emb)
	require.NoError(t, err)
	md := bench.Render(bench.Report{Calibration: c})
	require.Contains(t, md, "| + statement check (memory.SameStatement, the write path) |")
	require.Contains(t, md, "| statement check, dev half (the rule is tuned on it): ")
	require.Contains(t, md, "| statement check, held-out test half: ")
	require.Contains(t, md, "| speaker | near miss |")
	require.Contains(t, md, "| turn-duplicate | restatement |")
	require.NotContains(t, md, "False folds on the fold set", "no miss note while the target holds")
	require.Equal(t, 1, strings.Count(md, "## Fold calibration"))
}
