package server

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/plugins"
)

// reloadGrace is how long the replaced plugins keep serving after a reload, so that a request
// that looked the embedder up just before the swap still finds its plugin running; calls still
// in flight after it are waited for (plugins.Generation.Commit).
const reloadGrace = 2 * time.Second

// ReloadResult is what a reload put in place: the embedder choice and the plugins.
type ReloadResult struct {
	Embedder EmbedderStatus   `json:"embedder"`
	Plugins  []plugins.Status `json:"plugins"`
	// Warnings name what the reload read but did not apply (changed [workers] tables).
	Warnings []string `json:"warnings,omitempty"`
}

// Reload re-reads the configuration (Core.LoadConfig: the sources boot read) and the plugin
// folders, starts the embedder plugins the new configuration asks for (new or replaced
// binaries, changed checksums, changed [embedders] tables) beside the running ones, chooses
// the embedder as boot does, and swaps it in: requests in flight finish on the old plugins,
// which are stopped once they have. The per-token rate limits (auth.*) change at once too. A
// configuration with problems, or one boot would refuse (an embedder that cannot be chosen),
// is refused with the reason as a *memory.FieldError and everything keeps running as before.
// Other settings take effect at the next restart.
// `memhost reload`, POST /api/v1/admin/reload and SIGHUP call it.
func (c *Core) Reload(ctx context.Context) (ReloadResult, error) {
	if c.LoadConfig == nil {
		return ReloadResult{}, &memory.FieldError{Field: "config", Message: "this host was not started by `memhost serve` and cannot reload its configuration"}
	}
	c.reloadMu.Lock()
	defer c.reloadMu.Unlock()
	refuse := func(format string, args ...any) (ReloadResult, error) {
		msg := fmt.Sprintf(format, args...)
		c.Log.Warn("reload refused; the running configuration stays", "reason", msg)
		return ReloadResult{}, &memory.FieldError{Field: "config", Message: "reload refused, the running configuration stays: " + msg}
	}
	cfg, err := c.LoadConfig(ctx)
	if err != nil {
		return refuse("%v", err)
	}
	if problems := cfg.Validate(config.RequireDatabase); len(problems) > 0 {
		return refuse("%v", config.Problems(problems))
	}
	found, skipped := plugins.Discover(cfg.Plugins.Dirs, cfg.Plugins.Checksums)
	for _, p := range skipped {
		c.Log.Warn("plugin skipped", "err", p)
	}
	cands, missing := EmbedderCandidates(cfg, found, os.LookupEnv)
	for name, why := range missing {
		c.Log.Warn("embedder not started", "embedder", name, "reason", why)
	}
	gen, err := c.Plugins.Replace(ctx, cands)
	if err != nil {
		c.Log.Warn("reload: some plugins failed to start", "err", err)
	}
	stored, err := c.Store.EmbeddersWithVectors(ctx)
	if err != nil {
		gen.Abort()
		return ReloadResult{}, err
	}
	next, err := ChooseEmbedder(ctx, c.Plugins, cfg, stored, c.Log)
	if err != nil {
		gen.Abort()
		return refuse("%v", err)
	}
	c.Embedder.adopt(next)
	gen.Commit(reloadGrace)
	c.Limits.Reads.Set(cfg.Auth.ReadRatePerMinute, cfg.Auth.ReadBurst)
	c.Limits.Writes.Set(cfg.Auth.WriteRatePerMinute, cfg.Auth.WriteBurst)
	c.Limits.MapBuilds.Set(cfg.Auth.MapBuildRatePerMinute, cfg.Auth.MapBuildBurst)
	res := ReloadResult{Embedder: c.Embedder.Status(cfg.Embedder.FoldThresholds), Plugins: c.Plugins.List()}
	res.Warnings = workersAtRestart(c.Config.Workers, cfg.Workers)
	for _, w := range res.Warnings {
		c.Log.Warn("reload: not applied", "reason", w)
	}
	c.Log.Info("reloaded", "embedder", res.Embedder.Name, "tier", res.Embedder.Tier, "why", res.Embedder.Reason, "plugins", len(res.Plugins))
	return res, nil
}
