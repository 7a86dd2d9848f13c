package maintenance

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/core/store"
)

// JobStatus is one job as `memhost maintenance status` shows it.
type JobStatus struct {
	Job     string
	Kind    string // River's kind
	Enabled bool
	Every   time.Duration
	// Last is the latest run (any trigger), nil before the first.
	Last *store.MaintenanceRun
	// Next is when the next periodic run is due: the start of the window after the last one
	// run, or now when this window has not run. Nil when the job is not scheduled.
	Next *time.Time
}

// Status reports every configured job, in configuration order. project "" reports every run;
// a project key reports only the runs over that project (Last is its latest, nil when none):
// what a token bound to it may see, no other project's keys, ids or counts. A run no host
// works on any more (see RunLease) is reported abandoned, and its window as due again.
func (m *Maintenance) Status(ctx context.Context, project string) ([]JobStatus, error) {
	now := m.cfg.Clock.Now().UTC()
	if _, err := m.store.AbandonRuns(ctx, m.live(now), now); err != nil {
		return nil, err
	}
	last, err := m.store.LastRuns(ctx, project)
	if err != nil {
		return nil, err
	}
	windows, err := m.store.LastWindows(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]JobStatus, 0, len(m.order))
	for _, name := range m.order {
		s := m.jobs[name]
		st := JobStatus{Job: name, Kind: Args{Job: name}.Kind(), Enabled: s.Enabled, Every: s.Every}
		if r, ok := last[name]; ok {
			st.Last = &r
		}
		if s.Enabled && s.Every > 0 {
			next := now
			if w, ok := windows[name]; ok && !w.Add(s.Every).Before(now) {
				next = w.Add(s.Every)
			}
			st.Next = &next
		}
		out = append(out, st)
	}
	return out, nil
}

// Jobs names the configured jobs, in configuration order.
func (m *Maintenance) Jobs() []string { return append([]string(nil), m.order...) }
