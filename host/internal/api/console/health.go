package console

import (
	"github.com/memhost/memhost/host/internal/api/auth"
	"github.com/memhost/memhost/host/internal/brain"
	"github.com/memhost/memhost/host/internal/wire"
)

// The Health screen: the project's health snapshot, and the host's: plugins and their state,
// the embedder tier and re-embed progress, the maintenance jobs (last and next run, rows
// changed, LLM calls, tokens) and the workers with their last 24 hours. What a token sees is
// what REST shows it: the host's internals and the workers to an admin token bound to no
// project, the maintenance runs to admin tokens (a bound one sees its project's runs only).

// healthView is the Health screen's data; nil parts are not the caller's to see.
type healthView struct {
	Project     *brain.HealthView
	Host        *HostStatus
	Jobs        []wire.MaintenanceJob
	JobsHidden  string
	Workers     *wire.WorkersStatus
	WorkersNote string
}

func (c *Console) health(cl *call) error {
	ctx := cl.r.Context()
	v := healthView{}
	if cl.p.ProjectKey != "" || cl.r.FormValue("project") != "" {
		acc, err := cl.resolve()
		if err != nil {
			return err
		}
		h, err := c.Brain.Health(ctx, acc)
		if err != nil {
			return err
		}
		v.Project = &h
	}
	if c.Status != nil {
		s, err := c.Status(ctx, cl.p.HostWide())
		if err != nil {
			return err
		}
		v.Host = &s
	}
	switch {
	case c.Maintenance == nil:
	case !cl.p.Has(auth.ScopeAdmin):
		v.JobsHidden = "The maintenance jobs are shown to admin tokens; this session's token has no admin scope."
	default:
		jobs, err := c.Maintenance.StatusReport(ctx, cl.p.ProjectKey)
		if err != nil {
			return err
		}
		v.Jobs = jobs
	}
	switch {
	case c.Workers == nil:
		v.WorkersNote = "No LLM workers run on this host."
	case !cl.p.HostWide():
		v.WorkersNote = "The workers serve every project: they are shown to an admin token bound to no project."
	default:
		ws, err := c.Workers.Status(ctx)
		if err != nil {
			return err
		}
		v.Workers = &ws
	}
	c.render(cl.w, cl.r, cl, 200, "health", v)
	return nil
}
