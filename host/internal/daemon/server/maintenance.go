package server

import (
	"context"
	"fmt"
	"os"

	"github.com/jackc/pgx/v5"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/core/memory"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/jobs/maintenance"
)

// openMaintenance builds the maintenance jobs from [maintenance.*]. River's client starts
// with the background services (serve), not here: `memhost mcp` and the CLI's direct commands
// open a core too and must not join the leader election.
func (c *Core) openMaintenance(cfg *config.Config) error {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "memhost"
	}
	st, pu, jo, do := cfg.Maintenance.Stale, cfg.Maintenance.Purge, cfg.Maintenance.Journal, cfg.Maintenance.Dormancy
	re := cfg.Maintenance.Reembed
	c.Reembed = &maintenance.Reembed{Store: c.Store, Embedders: c.embedders, Batch: re.Batch, Rate: re.Rate,
		BackoffMin: re.BackoffMin, BackoffMax: re.BackoffMax, Pacer: c.Pacer}
	su := cfg.Maintenance.Summarize
	m, err := maintenance.New(c.Pool, c.Store, maintenance.Config{
		// Several hosts may run on one machine: the pid tells them apart in status and River.
		Host:   fmt.Sprintf("%s-%d", host, os.Getpid()),
		Logger: c.Log,
		Jobs: []maintenance.Scheduled{
			scheduled(maintenance.Stale{Store: c.Store, After: st.After}, st.MaintenanceJob, config.MaintenanceLLM{}),
			scheduled(maintenance.Purge{Store: c.Store, Grace: pu.Grace}, pu.MaintenanceJob, config.MaintenanceLLM{}),
			scheduled(maintenance.Journal{Store: c.Store, OlderThan: jo.OlderThan}, jo.MaintenanceJob, config.MaintenanceLLM{}),
			scheduled(maintenance.Dormancy{Store: c.Store, After: do.After}, do.MaintenanceJob, config.MaintenanceLLM{}),
			scheduled(c.Reembed, re.MaintenanceJob, config.MaintenanceLLM{}),
			scheduled(maintenance.Summarize{Store: c.Store, Memory: c.Service, Brain: c.Brain, Tasks: coreTasks{c},
				Exclude: su.Exclude, Extract: su.Extract, PlanDrift: su.PlanDrift, MaxAttempts: su.MaxAttempts}, su.MaintenanceJob, su.MaintenanceLLM),
			consolidateJob(c, cfg.Maintenance.Consolidate), conflictsJob(c, cfg.Maintenance.Conflicts)},
	})
	if err != nil {
		return err
	}
	c.Maintenance = m
	return nil
}

// scheduled runs job on the schedule and within the budgets its table t sets, and the model
// budget l (zero for a job that asks no model).
func scheduled(job maintenance.Job, t config.MaintenanceJob, l config.MaintenanceLLM) maintenance.Scheduled {
	return maintenance.Scheduled{Job: job, Enabled: t.Enabled, Every: t.Every,
		Budget: maintenance.Budget{MaxRows: t.MaxRows, MaxDuration: t.MaxDuration, MaxLLMCalls: l.MaxLLMCalls, MaxTokens: l.MaxTokens}}
}

// coreSummarizer queues session summaries through the core's maintenance, which is built after
// the brain that asks it.
type coreSummarizer struct{ c *Core }

func (s coreSummarizer) Declines(project string) string { return s.c.Maintenance.Declines(project) }

func (s coreSummarizer) QueueTx(ctx context.Context, tx pgx.Tx, entry store.Memory, excerpt string) error {
	return s.c.Maintenance.QueueTx(ctx, tx, entry, excerpt)
}

// gatekeeper is the write path's optional gatekeeper ([maintenance.gatekeeper]): no option
// when it is off.
func (c *Core) gatekeeper(cfg *config.Config) memory.Option {
	g := cfg.Maintenance.Gatekeeper
	if !g.Enabled {
		return func(*memory.Service) {}
	}
	return memory.WithGatekeeper(maintenance.Gatekeeper{Tasks: coreTasks{c}, Budget: g.Timeout})
}
