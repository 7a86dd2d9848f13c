package server

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/daemon/lifecycle"
)

// Background is the host's background work under one lifecycle: following the change feed
// into the lexical index, moving bulk-imported rows into the ANN index, recording search
// hits, giving writes stored before their embedder answered their vectors, checking plugin and worker health, purging dead tokens and the maintenance jobs (River). Start it once the core is open; Stop it before Close.
func (c *Core) Background() *lifecycle.Group {
	loops := []lifecycle.Service{
		lifecycle.Func("change feed", func(ctx context.Context) error {
			c.Follower.Run(ctx, func(err error) { c.Log.Warn("change feed", "err", err) })
			return nil
		}),
		lifecycle.Func("ann indexer", indexer{
			store: c.Store, pacer: c.Pacer, indexed: c.annIndexed, log: c.Log, maxWait: c.Config.Memory.IndexMaxWait,
		}.run),
		lifecycle.Func("scope graphs", c.runGraphs),
		lifecycle.Func("hit recorder", c.Service.RecordHits),
		lifecycle.Func("vector follower", c.Service.FollowVectors),
		lifecycle.Func("plugin health", c.Plugins.Run),
		lifecycle.Func("token purge", c.purgeTokens),
		lifecycle.Func("maintenance", c.Maintenance.Run),
	}
	if c.Tasks != nil {
		loops = append(loops, lifecycle.Func("worker health", c.Tasks.Supervise))
	}
	return lifecycle.NewGroup(c.Log, loops...)
}

// tokenPurgeInterval is how often a host deletes tokens past auth.PurgeGrace. Every host
// sharing the database does it; the DELETE is idempotent.
const tokenPurgeInterval = time.Hour

// purgeTokens deletes revoked and expired tokens once their grace has passed: each session's
// project token expires within a day, and the table must not grow with them.
func (c *Core) purgeTokens(ctx context.Context) error {
	for {
		if n, err := c.Tokens.Purge(ctx, auth.PurgeGrace); err != nil && ctx.Err() == nil {
			c.Log.Warn("token purge", "err", err)
		} else if n > 0 {
			c.Log.Info("tokens purged", "tokens", n)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(tokenPurgeInterval):
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
