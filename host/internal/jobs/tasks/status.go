package tasks

import (
	"context"
	"time"

	"github.com/memhost/memhost/host/internal/wire"

	"github.com/memhost/memhost/host/internal/config"
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/host/internal/plugins/workers"
	"github.com/memhost/memhost/sdk/worker"
)

// Status reports every worker and task kind.
func (r *Runner) Status(ctx context.Context) (wire.WorkersStatus, error) {
	s := wire.WorkersStatus{Workers: []wire.WorkerStatus{}, Tasks: []wire.TaskStatus{}}
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
		ws := wire.WorkerStatus{Name: name, Plugin: w.Plugin, Model: w.Model, DailyTokens: w.DailyTokens, Day: byWorker[name]}
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
		ts := wire.TaskStatus{Task: kind, Chain: r.Chain(worker.TaskKind(kind)), Day: byTask[kind]}
		ts.Waiting = r.overDaily(spend{tokens: ts.Day.InputTokens + ts.Day.OutputTokens, time: time.Duration(ts.Day.TimeMs) * time.Millisecond})
		s.Tasks = append(s.Tasks, ts)
	}
	return s, nil
}

// Plugins is the status of every worker plugin process, as plugins.Supervisor.List.
func (r *Runner) Plugins() []plugins.Status { return r.sup.List() }
