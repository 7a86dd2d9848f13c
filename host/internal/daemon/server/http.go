package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/memhost/memhost/host/internal/api/mcpserver"
	"github.com/memhost/memhost/host/internal/api/restapi"
	"github.com/memhost/memhost/host/internal/plugins"
)

// Version is the host's release, set at build time with -ldflags.
var Version = "dev"

// gin's mode is a process global that gin.New reads: set once, before any goroutine can build
// a handler, rather than on every Handler call, where parallel hosts in one process (tests, the
// bench) raced on it.
func init() { gin.SetMode(gin.ReleaseMode) }

// Handler builds the HTTP surface: MCP, REST, the operator console, health, readiness and
// metrics. closeMCP ends the MCP sessions still open and the console's live feed; call it once
// the listener has stopped.
func (c *Core) Handler() (h http.Handler, closeMCP func()) {
	r := gin.New()
	// Project keys hold slashes: /api/v1/projects/{key} takes them percent-encoded, which
	// only routing on the raw path keeps in one segment (gin unescapes the value after).
	r.UseRawPath = true
	r.Use(gin.Recovery())
	r.GET("/healthz", func(ctx *gin.Context) { ctx.JSON(http.StatusOK, gin.H{"status": "ok"}) })
	r.GET("/readyz", c.readyz)
	r.GET("/metrics", gin.WrapH(promhttp.HandlerFor(c.Registry, promhttp.HandlerOpts{})))
	mcp := mcpserver.New(c.Service, mcpserver.Options{Limits: c.Limits, Logger: c.Log, Version: Version, Brain: c.Brain})
	mh := mcp.Handler(c.Door)
	r.Any("/mcp", gin.WrapH(mh))
	r.Any("/mcp/*rest", gin.WrapH(mh))
	opts := restapi.Options{Service: c.Service, Brain: c.Brain, Projects: c.Store, Door: c.Door, Limits: c.Limits, Logger: c.Log,
		Status: func(ctx context.Context, full bool) (any, error) { return c.Status(ctx, full) },
		Reload: func(ctx context.Context) (any, error) { return c.Reload(ctx) }}
	// A nil pointer in an interface would not read as "none": set them only when they exist.
	if c.Tasks != nil {
		opts.Workers = c.Tasks
	}
	if c.Maintenance != nil {
		opts.Maintenance = c.Maintenance
	}
	restapi.Register(r, opts)
	stopConsole := c.mountConsole(r)
	return r, func() { mcp.Close(); stopConsole() }
}

// Readiness is /readyz's body. The endpoint is unauthenticated, so it shows states only: no
// paths, pids, versions or counts.
type Readiness struct {
	Status   string `json:"status"` // "ready" or "not ready"
	Database string `json:"database"`
	Embedder string `json:"embedder"`        // the active embedder's state
	Active   string `json:"active_embedder"` // and its name (a vector space, not a path)
	// ActiveWhy is why that embedder (EmbedderStatus.Reason, which names no URL or path), and
	// Configured is embedder.active as set.
	ActiveWhy  string            `json:"active_embedder_reason,omitempty"`
	Configured string            `json:"configured_embedder,omitempty"`
	Plugins    []PluginReadiness `json:"plugins"`
}

// PluginReadiness is one plugin's state on /readyz.
type PluginReadiness struct {
	Kind  string `json:"kind"`
	Name  string `json:"name"`
	State string `json:"state"`
}

// readyz answers 200 when the database answers and the active embedder is ready.
func (c *Core) readyz(ctx *gin.Context) {
	rctx, cancel := context.WithTimeout(ctx.Request.Context(), 2*time.Second)
	defer cancel()
	es := c.Embedder.Status(nil)
	body := Readiness{Database: "ok", Embedder: es.State, Active: es.Name, ActiveWhy: es.Reason, Configured: es.Configured, Plugins: []PluginReadiness{}}
	for _, p := range c.Plugins.List() {
		body.Plugins = append(body.Plugins, PluginReadiness{Kind: p.Kind, Name: p.Name, State: string(p.State)})
	}
	status := http.StatusOK
	if err := c.Pool.Ping(rctx); err != nil {
		status, body.Database = http.StatusServiceUnavailable, "unreachable"
	}
	if es.State != string(plugins.StateReady) {
		status = http.StatusServiceUnavailable
	}
	body.Status = map[bool]string{true: "ready", false: "not ready"}[status == http.StatusOK]
	ctx.JSON(status, body)
}

// Serve listens on cfg.Server.Listen until ctx ends, then drains requests, stops the background
// loops and closes the core (killing plugins).
func (c *Core) Serve(ctx context.Context) error {
	cfg := c.Config.Server
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return fmt.Errorf("listen on %s (server.listen): %w", cfg.Listen, err)
	}
	if err := c.StartWorkers(ctx); err != nil {
		return err
	}
	handler, closeMCP := c.Handler()
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: cfg.ReadTimeout,
		WriteTimeout: cfg.WriteTimeout, ErrorLog: slog.NewLogLogger(c.Log.Handler(), slog.LevelWarn)}
	bg := c.Background()
	if err := bg.Start(ctx); err != nil {
		return err
	}

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	c.Log.Info("memhost listening", "addr", ln.Addr().String(), "mcp", "/mcp", "rest", "/api/v1")
	select {
	case err := <-errc:
		_ = bg.Stop(context.WithoutCancel(ctx))
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	c.Log.Info("shutting down")
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
		c.Log.Warn("shutdown", "err", err)
	}
	closeMCP()
	if err := bg.Stop(sctx); err != nil {
		c.Log.Warn("shutdown", "err", err)
	}
	c.Close(sctx)
	return nil
}
