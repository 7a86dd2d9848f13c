package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/host/internal/core/store"
)

func TestSummarizeUsesNearestRank(t *testing.T) {
	t.Parallel()
	samples := make([]time.Duration, 100)
	for i := range samples {
		samples[len(samples)-1-i] = time.Duration(i+1) * time.Millisecond
	}
	l := summarize(samples)
	require.Equal(t, Latency{N: 100, P50: 50 * time.Millisecond, P99: 99 * time.Millisecond, Max: 100 * time.Millisecond}, l)
	require.Equal(t, Latency{}, summarize(nil))
}

func TestCorpusIsDeterministicAndDistinct(t *testing.T) {
	t.Parallel()
	a, b := NewCorpus(1).Take(2000), NewCorpus(1).Take(2000)
	require.Equal(t, a, b)
	seen := map[string]bool{}
	for _, f := range a {
		key := strings.ToLower(f.Text)
		require.False(t, seen[key], "duplicate text %q", f.Text)
		seen[key] = true
		require.NotEmpty(t, f.Paraphrase)
		require.NotEmpty(t, f.Query)
		_, err := store.ParseKind(string(f.Kind))
		require.NoError(t, err)
	}
	require.NotEqual(t, a[0], NewCorpus(2).Next())
}

func TestRecallAtCountsTies(t *testing.T) {
	t.Parallel()
	id := func(b byte) uuid.UUID { return uuid.UUID{b} }
	exact := []store.VectorHit{{ID: id(1), Similarity: 0.9}, {ID: id(2), Similarity: 0.8}, {ID: id(3), Similarity: 0.7}}
	// id 4 ties with the exact 3rd neighbour: as good an answer, found by a different walk.
	ann := []store.VectorHit{{ID: id(1), Similarity: 0.9}, {ID: id(2), Similarity: 0.8}, {ID: id(4), Similarity: 0.7}}
	tie, strict := recallAt(ann, exact, 3)
	require.InDelta(t, 1.0, tie, 1e-9)
	require.InDelta(t, 2.0/3, strict, 1e-9)
	worse := []store.VectorHit{{ID: id(1), Similarity: 0.9}, {ID: id(5), Similarity: 0.5}}
	tie, _ = recallAt(worse, exact, 3)
	require.InDelta(t, 1.0/3, tie, 1e-9)
}

func TestRenderMarksMisses(t *testing.T) {
	t.Parallel()
	rep := Report{
		Started:   time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		Config:    Config{Sizes: []int{10}, RedactNote: "test"},
		RoundTrip: Latency{N: 1, P50: 100 * time.Microsecond, P99: 2 * time.Millisecond},
		Scales: []Scale{{N: 10, Import: ImportStats{Rows: 10, Wall: time.Second, EmbedBusy: time.Millisecond, ImportBusy: time.Second, Workers: 1},
			Store: Latency{P50: time.Millisecond}, Search: Latency{P50: time.Millisecond}, Recall: 1,
			Banner: BannerBench{Candidates: 250, Fetch: Latency{N: 300, P50: time.Millisecond}, Render: Latency{N: 300, P50: 200 * time.Microsecond, P99: 2 * time.Millisecond}}}},
	}
	md := Render(rep)
	require.Contains(t, md, "## How to run")
	require.Contains(t, md, "| p50 (1 calls) | <= 200 µs | 100 µs | PASS |")
	require.Contains(t, md, "| p99 | <= 1.00 ms | 2.00 ms | **MISS** |")
	require.Contains(t, md, "Bulk import at 10")
	// A render tail far above its median is said to be a tail, not the render's work.
	require.Contains(t, md, "the render's p50 is 200 µs for the same 250 facts each time, so its p99 over 300 renders is a tail")
}
