package bench

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestScorecardJudgesEveryTargetAtTheHead: a run's targets are one table at the head of the
// report, each judged as its section judges it (a miss is a miss in both places), with the
// figures it was judged on; a skipped round has no row.
func TestScorecardJudgesEveryTargetAtTheHead(t *testing.T) {
	t.Parallel()
	rep := sampleReport()
	md := Render(rep)
	head, _, ok := strings.Cut(md, "## Where the time goes")
	require.True(t, ok)
	require.Contains(t, head, "## Targets in this run\n\n8 of 13 targets met on 2 CPUs")
	for _, row := range []string{
		"| a plugin call's round trip p50 <= 200 µs, p99 <= 1.00 ms | 80 µs / 900 µs | PASS |",
		"| 1000 in one project (in the service): import >= 5000/s, memory_store p50 / p99 <= 10.00 ms / 30.00 ms, memory_search <= 15.00 ms / 40.00 ms, banner render p99 <= 1.00 ms, fetch p50 <= 10.00 ms | NaN/s; 1.00 ms / 0 µs; 1.00 ms / 0 µs; 0 µs, 0 µs | **MISS** |",
		"| memory_store p50 <= 1.5x the peer's, same run | 3.00 ms vs 1.00 ms = 3.00x (opt-in flush_writes = false: 2.00x) | **MISS** |",
		"| memory_store p99 <= the peer's | 6.00 ms vs 8.00 ms = 0.75x (opt-in: 0.50x) | PASS |",
		"| memory_search p50 <= the peer's | 1.00 ms vs 2.00 ms = 0.50x | PASS |",
		"| memory_store p50 at 100000 <= 1.3x its p50 at 1000 (in the service) | 1.30 ms / 1.00 ms = 1.30x | PASS |",
		"| ANN recall@10 >= 0.95 at 100000 in one project, memory_search p50 <= 8.00 ms (in the service) | recall 0.970 (hnsw.ef_search 625), search p50 4.00 ms | PASS |",
		"| 1000 in 2 projects: memory_store p50 / p99 <= 5.00 ms / 15.00 ms | 2.00 ms / 20.00 ms",
		"| 1000 in 2 projects: memory_search p50 / p99 <= 8.00 ms / 25.00 ms | 3.00 ms / 9.00 ms | PASS |",
		"| a real CPU model configured: memory_store p50 <= 2x the floor's, same run | 3.00 ms vs 2.00 ms = 1.50x; 0 of 10 writes answered before their vector | PASS |",
		"| spawn overhead p50 <= 30.00 ms, p99 <= 50.00 ms, attributed | 25.00 ms / 60.00 ms (0 steps timed) | **MISS** |",
	} {
		require.Contains(t, head, row)
	}
	// The same verdict as the section's: the shared store p99 is a miss there too.
	require.Contains(t, md, "| memory_store p99 | <= 15.00 ms | 0 µs | **20.00 ms** |")
	require.NotContains(t, head, "a re-embed (dense", "no dense round ran: no row")

	// A run of the peers round alone heads its output with its own rows.
	only := Render(Report{Config: Config{OnlyPeers: true}, Machine: Machine{CPUs: 2}, Peers: rep.Peers})
	require.Contains(t, only, "## Targets in this run\n\n2 of 3 targets met")
}

// sampleReport is a run with a figure in every round the scorecard judges.
func sampleReport() Report {
	lat := func(p50, p99 time.Duration) Latency { return Latency{N: 10, P50: p50, P99: p99} }
	shared := Shared{
		Layout:  SharedLayout{Total: 1000, Sizes: []int{100, 900}, ByClass: map[string]int{classLarge: 1, classExact: 1}},
		Classes: []SharedClass{{Class: classLarge, Projects: 1, MinRows: 100, MaxRows: 100}},
		All:     SharedClass{Class: "all", Store: lat(2*time.Millisecond, 20*time.Millisecond), Search: lat(3*time.Millisecond, 9*time.Millisecond)},
	}
	return Report{
		Started:   time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		Machine:   Machine{CPUs: 2},
		Config:    Config{Sizes: []int{1000, 100000}},
		RoundTrip: Latency{N: 2000, P50: 80 * time.Microsecond, P99: 900 * time.Microsecond},
		Scales: []Scale{
			{N: 100000, Store: lat(1300*time.Microsecond, 0), Search: lat(4*time.Millisecond, 0), Recall: 0.97, EfSearch: 625},
			{N: 1000, Store: lat(time.Millisecond, 0), Search: lat(time.Millisecond, 0), Recall: 1},
		},
		Peers: &Peers{Peer: "peer 1.0", OptIn: 1, Sides: []PeerSide{
			{Name: "memhost", Store: lat(3*time.Millisecond, 6*time.Millisecond), Search: lat(time.Millisecond, 2*time.Millisecond)},
			{Name: "memhost opt-in", Store: lat(2*time.Millisecond, 4*time.Millisecond)},
			{Name: "peer", Store: lat(time.Millisecond, 8*time.Millisecond), Search: lat(2*time.Millisecond, 3*time.Millisecond)},
		}},
		Shared: &shared,
		Spawn:  &SpawnBench{CLI: "claude", Facts: 200, Overhead: lat(25*time.Millisecond, 60*time.Millisecond)},
		Slow:   &SlowModel{Model: "use-lite-512", Floor: lat(2*time.Millisecond, 0), Slow: lat(3*time.Millisecond, 0), Lag: ServerTime{P50: 40 * time.Millisecond, P99: 200 * time.Millisecond}, Lexical: 10},
	}
}
