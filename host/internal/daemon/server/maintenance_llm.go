package server

import (
	"context"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/jobs/maintenance"
	"github.com/memhost/memhost/host/internal/jobs/tasks"
	"github.com/memhost/memhost/sdk/worker"
)

// coreTasks gives the maintenance jobs the core's worker chains. The workers start after the
// core opens (StartWorkers, for serve only), so the jobs ask for them at each call: a core
// without workers answers tasks.ErrNoWorker and the jobs do what needs no model.
type coreTasks struct{ c *Core }

func (t coreTasks) Run(ctx context.Context, kind worker.TaskKind, task worker.Task) (worker.Answer, tasks.Call, error) {
	if t.c.Tasks == nil {
		return worker.Answer{}, tasks.Call{}, tasks.ErrNoWorker
	}
	return t.c.Tasks.Run(ctx, kind, task)
}

// chain is the jobs' worker chains, none when the job may make no LLM call (max_llm_calls 0;
// to the jobs' Budget a zero is no bound).
func chain(c *Core, maxCalls int) maintenance.Tasks {
	if maxCalls == 0 {
		return nil
	}
	return coreTasks{c}
}

func consolidateJob(c *Core, k config.MaintenanceConsolidate) maintenance.Scheduled {
	return scheduled(maintenance.Consolidate{Store: c.Store, Memory: c.Service, Tasks: chain(c, k.MaxLLMCalls), Same: k.Same, Near: k.Near, MaxCluster: k.MaxCluster},
		k.MaintenanceJob, k.MaintenanceLLM)
}

func conflictsJob(c *Core, k config.MaintenanceConflicts) maintenance.Scheduled {
	return scheduled(maintenance.Conflicts{Store: c.Store, Memory: c.Service, Tasks: chain(c, k.MaxLLMCalls), Facts: k.Facts, Journal: k.Journal},
		k.MaintenanceJob, k.MaintenanceLLM)
}
