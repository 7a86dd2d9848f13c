package workers

import (
	"context"
	"fmt"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/worker"
)

// Handle is how the host uses a worker plugin: a worker.Worker whose calls
// go through the supervisor and whose tasks and answers are held to the
// protocol (see the package documentation).
type Handle struct {
	p *plugins.Plugin
}

var _ worker.Worker = (*Handle)(nil)

// Find returns the worker that answers to name: its Describe name, else its
// binary's file name ("memhost-worker-echo") or the name part of that. See
// plugins.Supervisor.Find.
func Find(s *plugins.Supervisor, name string) (*Handle, error) {
	p, err := s.Find(plugin.KindWorker, name)
	if err != nil {
		return nil, err
	}
	return &Handle{p: p}, nil
}

// Info is what the plugin's Describe reported at its latest start.
func (h *Handle) Info() worker.Info {
	info, _ := h.p.Identity().Detail.(worker.Info)
	return info
}

// Status is a full snapshot of the plugin.
func (h *Handle) Status() plugins.Status { return h.p.Status() }

// Describe asks the running process to describe itself.
func (h *Handle) Describe(ctx context.Context) (worker.Info, error) {
	var info worker.Info
	err := h.call(ctx, "Describe", func(ctx context.Context, w worker.Worker) (err error) {
		info, err = w.Describe(ctx)
		return err
	})
	return info, err
}

// Run performs t and returns the checked answer. A task that breaks the
// worker's limits is refused before the plugin is called; the task's
// deadline bounds the call; an answer that fails its task's checks is a
// failed call (worker.ErrBadAnswer), never returned.
func (h *Handle) Run(ctx context.Context, t worker.Task) (worker.Answer, error) {
	if d, ok := ctx.Deadline(); ok && (t.Deadline.IsZero() || d.Before(t.Deadline)) {
		t.Deadline = d
	}
	info := h.Info()
	if err := t.Validate(info); err != nil {
		return worker.Answer{}, fmt.Errorf("worker %s: %w: %w", info.Name, worker.ErrInvalidInput, err)
	}
	ctx, cancel := context.WithDeadline(ctx, t.Deadline)
	defer cancel()
	var a worker.Answer
	err := h.call(ctx, "Run", func(ctx context.Context, w worker.Worker) (err error) {
		a, err = w.Run(ctx, t)
		return err
	})
	if err != nil {
		return worker.Answer{}, err
	}
	return a, nil
}

// Health calls the plugin's Health.
func (h *Handle) Health(ctx context.Context) error {
	return h.call(ctx, "Health", func(ctx context.Context, w worker.Worker) error { return w.Health(ctx) })
}

func (h *Handle) call(ctx context.Context, method string, fn func(context.Context, worker.Worker) error) error {
	return h.p.Call(ctx, method, func(ctx context.Context, raw any) error {
		w, err := asWorker(raw)
		if err != nil {
			return err
		}
		return fn(ctx, w)
	})
}
