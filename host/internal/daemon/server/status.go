package server

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/daemon/migrate"
	"github.com/memhost/memhost/host/internal/plugins"
)

// Status is what /api/v1/status and `memhost status` report.
type Status struct {
	Version    string           `json:"version"`
	Database   string           `json:"database"`
	Migrations MigrationStatus  `json:"migrations"`
	Embedder   EmbedderStatus   `json:"embedder"`
	Plugins    []plugins.Status `json:"plugins,omitempty"`
	Memories   store.Counts     `json:"memories"`
	FeedCursor int64            `json:"feed_cursor,omitempty"`
	// Reembed is how far the memories have converged on the active embedder's vectors.
	Reembed *wire.ReembedProgress `json:"reembed,omitempty"`
}

// MigrationStatus counts applied and pending migrations.
type MigrationStatus struct {
	Applied int    `json:"applied"`
	Pending int    `json:"pending"`
	Latest  string `json:"latest"`
}

// Status collects the host's status. Only full (an unbound admin) gets database-wide counts,
// plugin paths and the feed cursor; everyone else gets states, so a project-bound or
// read-only token learns nothing about other projects or the host's file system.
func (c *Core) Status(ctx context.Context, full bool) (Status, error) {
	s := Status{Version: Version, Database: "ok"}
	if full {
		s.Plugins, s.FeedCursor = c.Plugins.List(), c.Follower.Cursor()
		if c.Tasks != nil { // the workers run under a supervisor of their own
			s.Plugins = append(s.Plugins, c.Tasks.Plugins()...)
		}
	}
	if err := c.Pool.Ping(ctx); err != nil {
		s.Database = "unreachable"
		c.Log.Warn("status: database unreachable", "err", err)
		return s, nil
	}
	ms, err := migrate.List(ctx, c.Pool)
	if err != nil {
		return s, err
	}
	s.Migrations = summarize(ms)
	s.Embedder = c.Embedder.Status(c.Config.Embedder.FoldThresholds)
	if !full {
		return s, nil
	}
	if s.Memories, err = c.Store.Counts(ctx); err != nil {
		return s, err
	}
	if c.Reembed != nil {
		p, err := c.Reembed.Progress(ctx, time.Now())
		if err != nil {
			// The embedder being down must not take the status page with it.
			c.Log.Warn("status: re-embed progress", "err", err)
		} else {
			s.Reembed = &p
		}
	}
	return s, nil
}

func summarize(ms []migrate.Status) MigrationStatus {
	var out MigrationStatus
	for _, m := range ms {
		if m.AppliedAt != nil {
			out.Applied++
			out.Latest = m.Name
		} else {
			out.Pending++
		}
	}
	return out
}
