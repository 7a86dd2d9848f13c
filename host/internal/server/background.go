package server

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/store"
)

// indexIdle is how long the indexer sleeps when nothing is pending (or after an error).
const indexIdle = time.Second

// RunBackground runs the host's background loops until ctx ends: following the change feed
// into the lexical index, and moving bulk-imported rows into the ANN index.
func (c *Core) RunBackground(ctx context.Context) {
	go c.Follower.Run(ctx, func(err error) { c.Log.Warn("change feed", "err", err) })
	go c.runIndexer(ctx)
}

// runIndexer drains the rows imports left out of the ANN index. Until it reaches them they are
// found by exact scan, so this only moves cost out of the import, never visibility.
func (c *Core) runIndexer(ctx context.Context) {
	for {
		n, err := c.Store.IndexDeferred(ctx, store.IndexDeferredBatch)
		if err != nil && ctx.Err() == nil {
			c.Log.Warn("ann indexer", "err", err)
		}
		if n > 0 && err == nil {
			c.annIndexed.Add(float64(n))
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(indexIdle):
		}
	}
}
