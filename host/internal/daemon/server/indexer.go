package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/memhost/memhost/host/internal/jobs/pace"
)

// indexStep is how many rows the indexer moves per transaction, and indexIdle how long it
// sleeps when nothing is pending (or after an error).
//
// The indexer yields to an agent's calls: a graph insertion costs milliseconds of CPU, which
// on a small machine a burst of memory_store and memory_search calls would otherwise share. It
// moves rows only once no call has begun for memory.index_quiet, indexStep rows at a time, so
// a call that arrives meanwhile waits for a few insertions at most. A host whose calls never
// pause that long falls behind; after memory.index_max_wait it moves rows anyway, still
// indexStep at a time, resting between steps as the host's pacer says (memory.background_yield
// times each step's time: a quarter of the time by default) until the backlog is gone: a
// steady share, where a whole batch at once would hold a
// core for seconds and slow every call made meanwhile. Until a row is in its graph, searches
// find it by the exact scan of deferred rows, so the wait costs only that scan.
const (
	indexStep = 5
	indexIdle = time.Second
)

// indexer drains the rows left out of the ANN index: bulk imports, and writes to scopes with a
// graph of their own. Until it reaches them they are found by exact scan, so it only moves
// cost off the write, never visibility.
type indexer struct {
	store interface {
		IndexDeferred(ctx context.Context, limit int) (int, error)
	}
	// pacer is the host's: its gauge of agents' calls and memory.index_quiet say when to
	// start, its Yield how long to rest between steps while behind.
	pacer   *pace.Pacer
	maxWait time.Duration // memory.index_max_wait
	indexed prometheus.Counter
	log     *slog.Logger
}

func (x indexer) run(ctx context.Context) error {
	behind := false // calls have not paused for maxWait and rows are waiting
	for {
		if !behind {
			forced, err := waitQuiet(ctx, x.pacer.LastCall, x.pacer.Quiet, x.maxWait)
			if err != nil {
				return nil
			}
			behind = forced
		}
		start := time.Now()
		n, err := x.store.IndexDeferred(ctx, indexStep)
		if err != nil && ctx.Err() == nil {
			x.log.Warn("ann indexer", "err", err)
		}
		rest := indexIdle
		if n > 0 && err == nil {
			x.indexed.Add(float64(n))
			if !behind {
				continue
			}
			rest, behind = x.pacer.Decide(time.Now(), time.Since(start)), n == indexStep
		} else {
			behind = false
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(rest):
		}
	}
}

// waitQuiet returns once no call has begun for quiet (last is when the latest began), or, with
// forced set, once it has waited max for that; the error is ctx's.
func waitQuiet(ctx context.Context, last func() time.Time, quiet, max time.Duration) (forced bool, err error) {
	deadline := time.Now().Add(max)
	for {
		idle := time.Since(last())
		if idle >= quiet {
			return false, nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return true, nil
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-time.After(min(quiet-idle, left)):
		}
	}
}
