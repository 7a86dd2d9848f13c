package bench

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
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

// TestFoldSetHalves: the split by seed gives two halves of comparable size, each holding every
// kind, and every pair of one seed falls in one half.
func TestFoldSetHalves(t *testing.T) {
	t.Parallel()
	pairs, err := FoldPairs()
	require.NoError(t, err)
	half := map[string]FoldHalf{}
	size := map[FoldHalf]int{}
	kinds := map[FoldHalf]map[string]bool{FoldDev: {}, FoldTest: {}}
	for _, p := range pairs {
		h := p.Half()
		if prev, ok := half[p.Seed]; ok {
			require.Equal(t, prev, h, "seed %s", p.Seed)
		}
		half[p.Seed] = h
		size[h]++
		kinds[h][p.Kind] = true
	}
	for _, h := range []FoldHalf{FoldDev, FoldTest} {
		require.GreaterOrEqual(t, size[h], len(pairs)/3, "half %s", h)
		for kind := range foldQuota {
			require.True(t, kinds[h][kind], "half %s lacks kind %s", h, kind)
		}
	}
	require.Equal(t, "family:3", familySeed(17), "siblings share a seed")
	t.Logf("dev %d pairs, test %d pairs, %d seeds", size[FoldDev], size[FoldTest], len(half))
}
