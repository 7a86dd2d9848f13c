package bench

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/testkit/testplugins"
	"github.com/memhost/memhost/sdk/embedder/calibration"
	"github.com/memhost/memhost/sdk/embedder/embeddertest"
)

// minSharedRestatementFolds bounds the share of the shared-database round's restatements
// (paraphrase in scale_shared_text.go: a lead-in such as "Keep in mind: " before a stored fact)
// that the write path's fold decision folds into the fact they restate: before the fold rule
// dropped lead-ins, "Keep in mind: " read as a tag and a quarter of them stayed apart.
const minSharedRestatementFolds = 0.97

// TestFoldRuleOnSharedRestatements generates restatements the way the shared-database round
// does, from the Go standard library's doc comments, and applies the write path's fold
// decision (the embedder's threshold, then memory.SameStatement) to each and the fact it
// restates.
func TestFoldRuleOnSharedRestatements(t *testing.T) {
	t.Parallel()
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	require.NoError(t, err)
	p, err := loadProse(filepath.Join(strings.TrimSpace(string(goroot)), "src", "net"))
	require.NoError(t, err)
	pp := p.project(1)
	var pairs []calibration.Pair
	for range 1000 {
		f, ok := pp.fact()
		require.True(t, ok)
		pairs = append(pairs, calibration.Pair{A: f.Text, B: f.Paraphrase, Same: true})
	}
	emb := embeddertest.Launch(t, testplugins.BM25(t))
	info, err := emb.Describe(t.Context())
	require.NoError(t, err)
	scored, err := calibration.Score(t.Context(), emb, pairs)
	require.NoError(t, err)
	folded, byRule := 0, 0
	for _, s := range scored {
		same := memory.SameStatement(s.A, s.B)
		if same {
			byRule++
		}
		if store.NormalizeText(s.A) == store.NormalizeText(s.B) || s.Cosine >= info.SuggestedFoldThreshold && same {
			folded++
		}
	}
	rate := float64(folded) / float64(len(scored))
	t.Logf("%d restatements: %.1f%% fold (%.1f%% pass the statement check alone)", len(scored), 100*rate,
		100*float64(byRule)/float64(len(scored)))
	require.GreaterOrEqual(t, rate, minSharedRestatementFolds)
}
