package maintenance

import (
	"context"
	"errors"
	"strings"

	"github.com/memhost/memhost/host/internal/core/rules"
	"github.com/memhost/memhost/host/internal/core/store"
	"github.com/memhost/memhost/host/internal/wire"
)

// StatusReport is Status as the surfaces answer it (GET /api/v1/maintenance).
func (m *Maintenance) StatusReport(ctx context.Context, project string) ([]wire.MaintenanceJob, error) {
	st, err := m.Status(ctx, project)
	if err != nil {
		return nil, err
	}
	out := make([]wire.MaintenanceJob, 0, len(st))
	for _, s := range st {
		j := wire.MaintenanceJob{Job: s.Job, Kind: s.Kind, Enabled: s.Enabled, Every: s.Every.String(), Next: s.Next}
		if s.Last != nil {
			r := runReport(*s.Last)
			j.Last = &r
		}
		out = append(out, j)
	}
	return out, nil
}

// RunReport is RunNow as the surfaces answer it (POST /api/v1/maintenance/{job}/run): a job
// that is not configured is a field error naming the valid ones.
func (m *Maintenance) RunReport(ctx context.Context, job string, o wire.RunOptions) (wire.MaintenanceReport, error) {
	rep, err := m.RunNow(ctx, job, o)
	if errors.Is(err, ErrUnknownJob) {
		return wire.MaintenanceReport{}, rules.Errf("job", "unknown job %q (valid: %s)", job, strings.Join(m.Jobs(), ", "))
	}
	if err != nil {
		return wire.MaintenanceReport{}, err
	}
	items := rep.Result.Items
	if items == nil {
		items = []wire.MaintenanceItem{}
	}
	return wire.MaintenanceReport{Job: job, Run: runReport(rep.Run), Items: items}, nil
}

func runReport(r store.MaintenanceRun) wire.MaintenanceRun {
	return wire.MaintenanceRun{Trigger: r.Trigger, Project: r.Project, DryRun: r.DryRun, Host: r.Host, StartedAt: r.StartedAt,
		FinishedAt: r.FinishedAt, Outcome: r.Outcome, Error: r.Error, Examined: r.Examined, Changed: r.Changed,
		LLMCalls: r.LLMCalls, Tokens: r.Tokens}
}
