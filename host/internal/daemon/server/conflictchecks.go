package server

import (
	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/sdk/worker"
)

// conflictChecks is brain.ConflictChecks for this core: off by configuration, or because no
// worker can serve the conflicts chain. The task runner starts after the brain is built
// (StartWorkers, when serving), so it is asked at call time; a core that never starts workers
// (an operator command's) cannot tell.
func (c *Core) conflictChecks(cfg config.MaintenanceConflicts) func() (string, bool) {
	return func() (string, bool) {
		switch {
		case !cfg.Enabled:
			return "[maintenance.conflicts] enabled = false", true
		case cfg.MaxLLMCalls == 0:
			return "[maintenance.conflicts] max_llm_calls = 0", true
		case c.Tasks == nil:
			return "", false
		}
		return c.Tasks.Unserved(worker.TaskConflicts), true
	}
}
