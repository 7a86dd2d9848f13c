package lexical

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestScratchGrowsWithRoomToSpare: a write adds a slot to its partition, and the search after
// it must reuse the per-query accumulators rather than allocate them again (megabytes in a
// large project, after every write).
func TestScratchGrowsWithRoomToSpare(t *testing.T) {
	t.Parallel()
	var sc scratch
	sc.fit(20000)
	require.Len(t, sc.score, 20000)
	first := &sc.score[0]
	for size := 20001; size <= 25000; size++ {
		sc.fit(size)
		require.Len(t, sc.score, size)
		require.Len(t, sc.phraseN, size)
		require.Same(t, first, &sc.score[0], "grown to %d slots without a new allocation", size)
	}
	sc.fit(100)
	require.Len(t, sc.credited, 100, "a smaller partition uses the front")
	sc.fit(40000)
	require.Len(t, sc.best, 40000)
}
