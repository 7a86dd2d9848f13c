package server

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/jobs/tasks"
)

// StartWorkers launches the LLM workers ([workers], or the agent CLIs on PATH) and sets
// c.Tasks. Serve calls it; commands that open a core for one operation do not, so they start
// no worker processes.
func (c *Core) StartWorkers(ctx context.Context) error {
	if c.Tasks != nil {
		return nil
	}
	r, err := tasks.Open(ctx, tasks.Options{Config: c.Config, Pool: c.Pool, Log: c.Log, Registerer: c.Registry})
	if err != nil {
		return err
	}
	c.Tasks = r
	return nil
}

// workersAtRestart says, for a reload from running to next, which [workers] tables changed:
// the workers run as the host started them until it restarts, so a reload names what it did
// not apply rather than leave the operator to wonder.
func workersAtRestart(running, next config.Workers) []string {
	var changed []string
	names := slices.Sorted(func(yield func(string) bool) {
		for n := range running.Defined {
			if !yield(n) {
				return
			}
		}
		for n := range next.Defined {
			if _, ok := running.Defined[n]; !ok && !yield(n) {
				return
			}
		}
	})
	for _, name := range names {
		was, before := running.Defined[name]
		now, after := next.Defined[name]
		switch {
		case !before:
			changed = append(changed, fmt.Sprintf("[workers.%s] was added", name))
		case !after:
			changed = append(changed, fmt.Sprintf("[workers.%s] was removed", name))
		case !reflect.DeepEqual(was, now):
			changed = append(changed, fmt.Sprintf("[workers.%s] was changed", name))
		}
	}
	if !reflect.DeepEqual(running.Chains, next.Chains) {
		changed = append(changed, "[workers.chains] was changed (memhost workers chain TASK WORKER... changes a chain now)")
	}
	if len(changed) == 0 {
		return nil
	}
	return []string{strings.Join(changed, "; ") + ": workers apply when the host restarts, until then the running ones serve (memhost stop, then memhost up, or the service's restart)"}
}

// ServiceEnv lists, sorted, the host variables cfg's plugins are given when the host has them:
// each worker's (tasks.Passed: its API key, its env list, its agent CLI's login) and each
// embedding endpoint's API key. A service manager starts the host with almost no environment,
// so `memhost service install` hands it these. named are those the configuration names itself
// (api_key_env, env), which a worker cannot do without; the agent CLIs' login variables are
// passed when set. lookPath finds the agent CLIs that serve as workers when none is configured.
func ServiceEnv(cfg *config.Config, lookPath func(string) (string, error)) (all, named []string) {
	all = tasks.Passed(cfg.Workers, lookPath)
	for _, w := range cfg.Workers.Defined {
		if w.APIKeyEnv != "" {
			named = append(named, w.APIKeyEnv)
		}
		named = append(named, w.Env...)
	}
	for _, e := range cfg.Embedders {
		if e.APIKeyEnv != "" {
			named = append(named, e.APIKeyEnv)
		}
	}
	all = append(all, named...)
	slices.Sort(all)
	slices.Sort(named)
	return slices.Compact(all), slices.Compact(named)
}
