package workers

import (
	"context"
	"fmt"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/worker"
)

// Handle is how the host uses a worker plugin: a worker.Worker whose calls
// go through the supervisor and whose tasks and answers are held to the
// protocol (see the package documentation). Info, Describe, Health, Status
// and the rest are plugins.Handle's.
type Handle struct {
	plugins.Handle[worker.Worker, worker.Info]
}

var _ worker.Worker = (*Handle)(nil)

// Find returns the worker that answers to name: its Describe name, else its
// binary's file name ("memhost-worker-echo") or the name part of that. See
// plugins.Supervisor.Find.
func Find(s *plugins.Supervisor, name string) (*Handle, error) {
	h, err := Adapter{}.Find(s, name)
	if err != nil {
		return nil, err
	}
	return &Handle{h}, nil
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
	err := h.Call(ctx, "Run", func(ctx context.Context, w worker.Worker) (err error) {
		a, err = w.Run(ctx, t)
		return err
	})
	if err != nil {
		return worker.Answer{}, err
	}
	return a, nil
}
