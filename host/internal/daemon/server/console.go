package server

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/memhost/memhost/host/internal/api/console"
)

// mountConsole serves the operator console at /console/ (and / redirects there) and starts its
// live feed; the returned function stops the feed and waits for it.
func (c *Core) mountConsole(r *gin.Engine) (stop func()) {
	o := console.Options{Service: c.Service, Brain: c.Brain, Door: c.Door, Signin: c.Tokens, Projects: c.Store, Figures: c.Store,
		Maintenance: c.Maintenance, Feed: c.Follower, Metrics: c.Registry, Limits: c.Limits, Logger: c.Log, Status: c.consoleStatus}
	if c.Tasks != nil { // a nil *Runner in the interface would not read as "no workers"
		o.Workers = c.Tasks
	}
	con := console.New(o)
	h := gin.WrapH(con)
	r.Any(console.Prefix+"*path", h)
	r.GET("/console", func(ctx *gin.Context) { ctx.Redirect(http.StatusMovedPermanently, console.Prefix) })
	r.GET("/", func(ctx *gin.Context) { ctx.Redirect(http.StatusFound, console.Prefix) })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = con.Run(ctx)
	}()
	return func() { cancel(); <-done }
}

// consoleStatus is the host's status as the console's health page shows it: the one Status
// computes for /api/v1/status.
func (c *Core) consoleStatus(ctx context.Context, full bool) (console.HostStatus, error) {
	s, err := c.Status(ctx, full)
	if err != nil {
		return console.HostStatus{}, err
	}
	e := s.Embedder
	return console.HostStatus{Version: s.Version, Database: s.Database, Plugins: s.Plugins, Memories: s.Memories, Reembed: s.Reembed,
		Embedder: console.EmbedderStatus{Name: e.Name, State: e.State, Tier: e.Tier, Configured: e.Configured, Reason: e.Reason,
			Degraded: e.Degraded, Dimensions: e.Dimensions, FoldThreshold: e.FoldThreshold}}, nil
}
