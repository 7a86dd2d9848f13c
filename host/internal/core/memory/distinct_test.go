package memory

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/testkit/testdb"
	"github.com/memhost/memhost/sdk/embedder/calibration"
)

func TestDistinct(t *testing.T) {
	t.Parallel()
	distinct := [][2]string{
		{"api-web runs 28 replicas in dev", "billing-web runs 16 replicas in dev"},
		{"The API server listens on port 8080.", "The API server listens on port 9090."},
		{"parseHTTPResponse lives in internal/httpx", "parseGRPCResponse lives in internal/grpcx"},
	}
	for _, p := range distinct {
		require.True(t, Distinct(p[0], p[1]), "%q vs %q", p[0], p[1])
	}
	same := [][2]string{
		{"We use pnpm, not npm, in this repo.", "This project uses pnpm instead of npm."},
		{"The API server listens on port 8080.", "Port 8080 is where the API server listens."},
		{"Use pnpm for installs", "Use pnpm 9 for installs"}, // a refinement adds a specific
		{"Database migrations live in the migrations/ directory.", "SQL migrations are stored under migrations/."},
	}
	for _, p := range same {
		require.False(t, Distinct(p[0], p[1]), "%q vs %q", p[0], p[1])
	}
}

// TestDistinctKeepsLabelledParaphrases: on the BM25 calibration pairs, the guard never stops a
// labelled paraphrase from folding, so it can only lower the false-fold rate.
func TestDistinctKeepsLabelledParaphrases(t *testing.T) {
	t.Parallel()
	pairs, err := calibration.ReadPairsFile(filepath.Join(testdb.RepoRoot(), "plugins", "embed-bm25", "bm25", "testdata", "pairs.jsonl"))
	require.NoError(t, err)
	vetoed := 0
	for _, p := range pairs {
		if Distinct(p.A, p.B) {
			require.False(t, p.Same, "a labelled paraphrase was vetoed: %q / %q", p.A, p.B)
			vetoed++
		}
	}
	t.Logf("the guard vetoes %d of %d pairs, all labelled distinct", vetoed, len(pairs))
}
