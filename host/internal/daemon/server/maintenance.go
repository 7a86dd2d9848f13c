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
		BackoffMin: re.BackoffMin, BackoffMax: re.BackoffMax}
	su := cfg.Maintenance.Summarize
	m, err := maintenance.New(c.Pool, c.Store, maintenance.Config{
		// Several hosts may run on one machine: the pid tells them apart in status and River.
		Host:   fmt.Sprintf("%s-%d", host, os.Getpid()),
		Logger: c.Log,
		Jobs: []maintenance.Scheduled{{
			Job:     maintenance.Stale{Store: c.Store, After: st.After},
			Enabled: st.Enabled, Every: st.Every,
			Budget: maintenance.Budget{MaxRows: st.MaxRows, MaxDuration: st.MaxDuration},
		}, {
			Job:     maintenance.Purge{Store: c.Store, Grace: pu.Grace},
			Enabled: pu.Enabled, Every: pu.Every,
			Budget: maintenance.Budget{MaxRows: pu.MaxRows, MaxDuration: pu.MaxDuration},
		}, {
			Job:     maintenance.Journal{Store: c.Store, OlderThan: jo.OlderThan},
			Enabled: jo.Enabled, Every: jo.Every,
			Budget: maintenance.Budget{MaxRows: jo.MaxRows, MaxDuration: jo.MaxDuration},
		}, {
			Job:     maintenance.Dormancy{Store: c.Store, After: do.After},
			Enabled: do.Enabled, Every: do.Every,
			Budget: maintenance.Budget{MaxRows: do.MaxRows, MaxDuration: do.MaxDuration},
		}, {
			Job: c.Reembed, Enabled: re.Enabled, Every: re.Every,
			Budget: maintenance.Budget{MaxRows: re.MaxRows, MaxDuration: re.MaxDuration},
		}, {
			Job: maintenance.Summarize{Store: c.Store, Memory: c.Service, Brain: c.Brain, Tasks: coreTasks{c},
				Exclude: su.Exclude, Extract: su.Extract, PlanDrift: su.PlanDrift, MaxAttempts: su.MaxAttempts},
			Enabled: su.Enabled, Every: su.Every,
			Budget: maintenance.Budget{MaxRows: su.MaxRows, MaxDuration: su.MaxDuration, MaxLLMCalls: su.MaxLLMCalls, MaxTokens: su.MaxTokens},
		}, consolidateJob(c, cfg.Maintenance.Consolidate), conflictsJob(c, cfg.Maintenance.Conflicts)},
	})
	if err != nil {
		return err
	}
	c.Maintenance = m
	return nil
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
