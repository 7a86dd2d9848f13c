package server

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/lifecycle"
	"github.com/memhost/memhost/host/internal/store"
)

// indexIdle is how long the indexer sleeps when nothing is pending (or after an error).
const indexIdle = time.Second

// Background is the host's background work under one lifecycle: following the change feed
// into the lexical index, moving bulk-imported rows into the ANN index, recording search
// hits and checking plugin health. Start it once the core is open; Stop it before Close.
func (c *Core) Background() *lifecycle.Group {
	return lifecycle.NewGroup(c.Log,
		lifecycle.Func("change feed", func(ctx context.Context) error {
			c.Follower.Run(ctx, func(err error) { c.Log.Warn("change feed", "err", err) })
			return nil
		}),
		lifecycle.Func("ann indexer", c.runIndexer),
		lifecycle.Func("scope graphs", c.runGraphs),
		lifecycle.Func("hit recorder", c.Service.RecordHits),
		lifecycle.Func("plugin health", c.Plugins.Run),
	)
}

// indexStep is how many rows the indexer moves per transaction while agents are quiet.
//
// The indexer yields to an agent's calls: a graph insertion costs milliseconds of CPU, which
// on a small machine a burst of memory_store and memory_search calls would otherwise share. It
// moves rows only once no call has begun for memory.index_quiet, indexStep rows at a time, so
// a call that arrives meanwhile waits for a few insertions at most. A host that is never that
// quiet still moves a full batch every memory.index_max_wait. Until a row is in its graph,
// searches find it by the exact scan of deferred rows, so the wait costs only that scan.
const indexStep = 5

// runIndexer drains the rows left out of the ANN index: bulk imports, and writes to scopes
// with a graph of their own. Until it reaches them they are found by exact scan, so this only
// moves cost off the write, never visibility.
func (c *Core) runIndexer(ctx context.Context) error {
	for {
		forced, err := waitQuiet(ctx, c.Service.LastCall, c.Config.Memory.IndexQuiet, c.Config.Memory.IndexMaxWait)
		if err != nil {
			return nil
		}
		limit := indexStep
		if forced {
			limit = store.IndexDeferredBatch
		}
		n, err := c.Store.IndexDeferred(ctx, limit)
		if err != nil && ctx.Err() == nil {
			c.Log.Warn("ann indexer", "err", err)
		}
		if n > 0 && err == nil {
			c.annIndexed.Add(float64(n))
			continue
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(indexIdle):
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

// graphInterval is how often a host looks for scopes that have grown past the graph size.
const graphInterval = time.Minute

// runGraphs gives every scope that has grown large its own ANN graph (pgstore.IndexScopes).
// Until a scope has one it is searched exactly, so this only moves cost, never visibility.
func (c *Core) runGraphs(ctx context.Context) error {
	for {
		n, err := c.Store.IndexScopes(ctx)
		if err != nil && ctx.Err() == nil {
			c.Log.Warn("scope graphs", "err", err)
		}
		if n > 0 {
			c.Log.Info("scope graphs built", "graphs", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(graphInterval):
		}
	}
}
