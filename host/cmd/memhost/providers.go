package main

import (
	"context"
	"os"
	"slices"
	"time"

	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/providers"
	"github.com/memhost/memhost/sdk/plugin"
)

// startProviders starts the provider plugins in the plugin folders (only the one named cli
// when cli is not ""), for commands that ask them about their CLIs (connect, import-cli), and
// returns the names of those found; stop shuts them down. One that fails to start is reported
// when it is looked up (providers.Find), with the reason.
func startProviders(ctx context.Context, cfg *config.Config, cli string) (sup *plugins.Supervisor, names []string, stop func()) {
	cands, _ := plugins.Discover(pluginDirs(cfg), cfg.Plugins.Checksums)
	cands = slices.DeleteFunc(plugins.OfKind(cands, plugin.KindProvider), func(c plugins.Candidate) bool { return cli != "" && c.Name != cli })
	sup = plugins.New(plugins.Config{
		Adapters: []plugins.Adapter{providers.Adapter{}}, CallTimeout: cfg.Plugins.CallTimeout, HealthInterval: -1,
		Logger: hclog.New(&hclog.LoggerOptions{Level: hclog.Error, Output: os.Stderr}),
	})
	stop = func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		_ = sup.Shutdown(ctx)
	}
	_ = sup.Start(ctx, cands)
	for _, c := range cands {
		names = append(names, c.Name)
	}
	return sup, names, stop
}
