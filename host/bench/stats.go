package bench

import (
	"math"
	"slices"
	"time"
)

// Latency summarises a set of timed calls.
type Latency struct {
	N   int
	P50 time.Duration
	P99 time.Duration
	Max time.Duration
}

// summarize computes nearest-rank percentiles, the usual definition for latency targets: p99
// of 500 samples is the 495th fastest call, a value that actually happened.
func summarize(samples []time.Duration) Latency {
	if len(samples) == 0 {
		return Latency{}
	}
	s := slices.Clone(samples)
	slices.Sort(s)
	rank := func(p float64) time.Duration {
		i := int(math.Ceil(p*float64(len(s)))) - 1
		return s[max(0, min(i, len(s)-1))]
	}
	return Latency{N: len(s), P50: rank(0.50), P99: rank(0.99), Max: s[len(s)-1]}
}
