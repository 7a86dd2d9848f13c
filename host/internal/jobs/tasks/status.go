package tasks

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/workers"
	"github.com/memhost/memhost/sdk/worker"
)

// Status is what `memhost workers` and GET /api/v1/workers show.
type Status struct {
	// Skipped, when set, says why LLM tasks are not run at all.
	Skipped string         `json:"skipped,omitempty"`
	Workers []WorkerStatus `json:"workers"`
	Tasks   []TaskStatus   `json:"tasks"`
}

// WorkerStatus is one worker's state and its last 24 hours.
type WorkerStatus struct {
	Name     string `json:"name"`
	Plugin   string `json:"plugin"`
	Model    string `json:"model,omitempty"`
	Locality string `json:"locality,omitempty"`
	// State is the plugin process's state (ready, unhealthy, restarting, failed), or
	// "missing" when its plugin binary was not found.
	State string `json:"state"`
	// LastError is why the plugin process is not ready (a failed start or health check).
	LastError string `json:"last_error,omitempty"`
	// LastFailure is the worker's last failed call on this host since it last answered, with
	// what the worker said: a plugin process can be ready while every call fails (an agent
	// CLI that is not logged in, an endpoint that refuses the key).
	LastFailure *Failure `json:"last_failure,omitempty"`
	// BackedOffUntil is set while the circuit breaker passes the worker over.
	BackedOffUntil *time.Time `json:"backed_off_until,omitempty"`
	DailyTokens    int        `json:"daily_tokens,omitempty"`
	Day            Rollup     `json:"last_24h"`
}

// TaskStatus is one task kind's chain and budget.
type TaskStatus struct {
	Task  string   `json:"task"`
	Chain []string `json:"chain"`
	Day   Rollup   `json:"last_24h"`
	// Waiting, when set, says which daily budget the kind has spent: its tasks wait.
	Waiting string `json:"waiting,omitempty"`
}

// Status reports every worker and task kind.
func (r *Runner) Status(ctx context.Context) (Status, error) {
	s := Status{Workers: []WorkerStatus{}, Tasks: []TaskStatus{}}
	if len(r.defined) == 0 {
		s.Skipped = "no LLM worker: none is configured ([workers.NAME]) and no agent CLI (claude, gemini, codex) is on the host's PATH; LLM tasks are skipped, deterministic maintenance still runs"
	}
	byWorker, err := r.rollups(ctx, "worker")
	if err != nil {
		return s, err
	}
	byTask, err := r.rollups(ctx, "task")
	if err != nil {
		return s, err
	}
	now := r.now()
	for _, name := range r.Workers() {
		w := r.defined[name]
		ws := WorkerStatus{Name: name, Plugin: w.Plugin, Model: w.Model, DailyTokens: w.DailyTokens, Day: byWorker[name]}
		if why, ok := r.missing[name]; ok {
			ws.State, ws.LastError = "missing", why
		} else if h, err := workers.Find(r.sup, name); err != nil {
			ws.State, ws.LastError = "failed", err.Error()
		} else {
			st := h.Status()
			info := h.Info()
			ws.State, ws.LastError = string(st.State), st.LastError
			if info.Model != "" {
				ws.Model = info.Model
			}
			if info.Name != "" {
				ws.Locality = info.Locality.String()
			}
		}
		if f := r.lastFailure(name); !f.At.IsZero() {
			ws.LastFailure = &f
		}
		if until := r.breaker(name).until(now); !until.IsZero() {
			ws.BackedOffUntil = &until
		}
		s.Workers = append(s.Workers, ws)
	}
	for _, kind := range config.TaskKinds {
		ts := TaskStatus{Task: kind, Chain: r.Chain(worker.TaskKind(kind)), Day: byTask[kind]}
		ts.Waiting = r.overDaily(spend{tokens: ts.Day.InputTokens + ts.Day.OutputTokens, time: time.Duration(ts.Day.TimeMs) * time.Millisecond})
		s.Tasks = append(s.Tasks, ts)
	}
	return s, nil
}

// Plugins is the status of every worker plugin process, as plugins.Supervisor.List.
func (r *Runner) Plugins() []plugins.Status { return r.sup.List() }
