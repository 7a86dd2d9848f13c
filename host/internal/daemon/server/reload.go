package server

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/memhost/memhost/host/internal/core/rules"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/embedders"
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
// which are stopped once they have. The per-token rate limits (auth.*) change at once too.
//
// A reload is all or nothing: everything new is started and checked before anything is
// swapped, and a reload is refused, with the reason as a *rules.FieldError, when the new
// configuration has problems, when a plugin it asks for cannot start (a configured
// [embedders.NAME] whose binary is missing or fails plugins.checksums, a running plugin whose
// binary no longer passes discovery, a launch that fails), or when its embedder choice is one
// boot would refuse or leaves no embedder serving. A refused reload stops what it started and
// leaves the running plugins and embedder exactly as they were. (Boot is more lenient: a host
// with nothing running yet serves what it can and says what is missing.) Other settings take
// effect at the next restart. `memhost reload`, POST /api/v1/admin/reload and SIGHUP call it.
func (c *Core) Reload(ctx context.Context) (ReloadResult, error) {
	if c.LoadConfig == nil {
		return ReloadResult{}, &rules.FieldError{Field: "config", Message: "this host was not started by `memhost serve` and cannot reload its configuration"}
	}
	c.reloadMu.Lock()
	defer c.reloadMu.Unlock()
	refuse := func(format string, args ...any) (ReloadResult, error) {
		msg := fmt.Sprintf(format, args...)
		c.Log.Warn("reload refused; the running configuration stays", "reason", msg)
		return ReloadResult{}, &rules.FieldError{Field: "config", Message: "reload refused, the running configuration stays: " + msg}
	}
	cfg, err := c.LoadConfig(ctx)
	if err != nil {
		return refuse("%v", err)
	}
	if problems := cfg.Validate(config.RequireDatabase, RefuseSecrets()); len(problems) > 0 {
		return refuse("%v", config.Problems(problems))
	}
	found, skipped := plugins.Discover(cfg.Plugins.Dirs, cfg.Plugins.Checksums)
	cands, missing := EmbedderCandidates(cfg, found, os.LookupEnv)
	if why := unstartable(cfg, c.Plugins.List(), skipped, missing); why != "" {
		return refuse("%s", why)
	}
	for _, p := range skipped {
		c.Log.Warn("plugin skipped", "err", p)
	}
	gen, err := c.Plugins.Replace(ctx, cands)
	if err != nil {
		gen.Abort()
		return refuse("a plugin did not start (%s); `memhost plugins` shows the running ones", plugins.OneLine(err.Error(), 300))
	}
	stored, err := c.Store.EmbeddersWithVectors(ctx)
	if err != nil {
		gen.Abort()
		return ReloadResult{}, err
	}
	next, err := ChooseEmbedder(ctx, c.Plugins, cfg, stored, c.Log)
	if err == nil && next.Handle() == nil {
		// Boot waits for the dense embedder the stored vectors need; a running host keeps the
		// one that serves now rather than trade it for none.
		err = fmt.Errorf("no embedder would serve: %w", next.pending)
	}
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

// unstartable says why a reload cannot start what it asks for, or "": a configured
// [embedders.NAME] whose binary is missing or was skipped by discovery (a plugins.checksums
// entry that does not match it, say), or a plugin running now whose binary discovery skipped,
// which the reload would silently drop. Binaries are named by file, not path.
func unstartable(cfg *config.Config, running []plugins.Status, skipped []error, missing map[string]string) string {
	skippedBinary := map[string]string{} // file name -> why discovery skipped it
	for _, err := range skipped {
		if de, ok := errors.AsType[*plugins.DiscoveryError](err); ok {
			skippedBinary[filepath.Base(de.Path)] = de.Reason
		}
	}
	var why []string
	for _, name := range slices.Sorted(maps.Keys(missing)) {
		binary := plugins.Candidate{Kind: embedders.Adapter{}.Kind(), Name: cfg.Embedders[name].Plugin}.Binary()
		if reason, ok := skippedBinary[binary]; ok {
			why = append(why, fmt.Sprintf("[embedders.%s] cannot start: %s was skipped: %s", name, binary, reason))
			delete(skippedBinary, binary)
			continue
		}
		why = append(why, fmt.Sprintf("[embedders.%s] cannot start: %s", name, missing[name]))
	}
	for _, st := range running {
		if reason, ok := skippedBinary[st.Binary]; ok {
			why = append(why, fmt.Sprintf("%s, running now, would be dropped: %s", st.Binary, reason))
			delete(skippedBinary, st.Binary)
		}
	}
	return strings.Join(why, "; ")
}
