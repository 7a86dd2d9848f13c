package bench

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/store"
)

var updateFoldSet = flag.Bool("update-foldset", false, "rewrite testdata/foldpairs.jsonl from the generator")

// TestFoldSetIsGenerated keeps the committed fold set and its generator in step: the file is
// what GenerateFoldPairs(FoldSetSeed) gives, so a seed edit shows up as a diff of the data.
func TestFoldSetIsGenerated(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, p := range GenerateFoldPairs(FoldSetSeed) {
		require.NoError(t, enc.Encode(p))
	}
	if *updateFoldSet {
		require.NoError(t, os.WriteFile("testdata/foldpairs.jsonl", buf.Bytes(), 0o644))
		return
	}
	require.Equal(t, buf.String(), string(foldPairsJSONL), "run go test ./internal/bench -run TestFoldSetIsGenerated -update-foldset")
}

func TestFoldSetShape(t *testing.T) {
	t.Parallel()
	pairs, err := FoldPairs()
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(pairs), 5000)
	byKind := map[string]int{}
	seen := map[[2]string]bool{}
	for _, p := range pairs {
		byKind[p.Kind]++
		require.Equal(t, foldSameKinds[p.Kind], p.Same, "kind %s is labelled by its family", p.Kind)
		require.NotEqual(t, p.A, p.B)
		if !p.Same {
			require.NotEqual(t, store.NormalizeText(p.A), store.NormalizeText(p.B), "a distinct pair is not one text: %q", p.A)
		}
		key := [2]string{p.A, p.B}
		if p.B < p.A {
			key = [2]string{p.B, p.A}
		}
		require.False(t, seen[key], "pair listed twice: %q / %q", p.A, p.B)
		seen[key] = true
	}
	for kind, quota := range foldQuota {
		require.GreaterOrEqual(t, byKind[kind], quota, "kind %s", kind)
	}
	t.Logf("%d pairs: %v", len(pairs), byKind)
}
