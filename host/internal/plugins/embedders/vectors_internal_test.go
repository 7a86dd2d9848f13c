package embedders

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCheckVectors(t *testing.T) {
	t.Parallel()
	ok := []float32{0, -1, math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32}
	require.NoError(t, checkVectors([][]float32{ok, ok}, 2, len(ok)))
	require.NoError(t, checkVectors([][]float32{make([]float32, 3)}, 1, 3), "a zero vector is legitimate (text with no tokens)")
	for bad, want := range map[float32]string{
		float32(math.NaN()):   "NaN",
		float32(math.Inf(1)):  "+Inf",
		float32(math.Inf(-1)): "-Inf",
	} {
		v := []float32{1, 2, bad}
		require.ErrorContains(t, checkVectors([][]float32{ok[:3], v}, 2, 3), "vector 1 component 2 is "+want)
	}
	require.ErrorContains(t, checkVectors([][]float32{ok}, 2, len(ok)), "1 vectors for 2 texts")
	require.ErrorContains(t, checkVectors([][]float32{ok[:2]}, 1, 3), "vector 0 has 2 dimensions, Describe promised 3")
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	texts := []string{"abc", strings.Repeat("é", 4), "a" + strings.Repeat("😀", 2)}
	got := truncate(texts, 4)
	require.Equal(t, []string{"abc", "éé", "a"}, got)
	require.Equal(t, strings.Repeat("é", 4), texts[1], "the caller's slice is untouched")
	same := []string{"ab", "cd"}
	require.Same(t, &same[0], &truncate(same, 2)[0], "no copy when nothing is cut")
	require.Equal(t, texts, truncate(texts, 0), "0 means no limit")
}

func TestCheckDirections(t *testing.T) {
	t.Parallel()
	zero, some := make([]float32, 3), []float32{0, 1, 0}
	require.NoError(t, checkDirections([][]float32{some, zero}, []string{"a fact", "🎉 …"}, "dense-v1-3"), "no words: no direction to find")
	require.ErrorContains(t, checkDirections([][]float32{some, zero}, []string{"a fact", "the api 8080"}, "dense-v1-3"),
		"vector 1 is all zeros for a text with words")
	require.NoError(t, checkDirections([][]float32{zero}, []string{"pnpm rocks"}, "bm25-v1-384"), "hashed terms may cancel")
}
