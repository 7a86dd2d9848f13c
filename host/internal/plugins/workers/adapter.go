package workers

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/worker"
)

// Adapter teaches the plugin supervisor the worker kind.
type Adapter struct{}

var _ plugins.Adapter = Adapter{}

// Kind is plugin.KindWorker.
func (Adapter) Kind() string { return worker.Kind.Name() }

// SDKKind is worker.Kind.
func (Adapter) SDKKind() plugin.Kind { return worker.Kind }

// Identify asks the worker to describe itself. The kinds it serves and where
// its model runs are its shape: a restarted process that serves other kinds,
// or moved a local model to a remote one, is refused rather than silently
// sent text it was not chosen for.
func (Adapter) Identify(ctx context.Context, raw any) (plugins.Identity, error) {
	w, err := asWorker(raw)
	if err != nil {
		return plugins.Identity{}, err
	}
	info, err := w.Describe(ctx)
	if err != nil {
		return plugins.Identity{}, err
	}
	if err := info.Validate(); err != nil {
		return plugins.Identity{}, fmt.Errorf("invalid description: %w", err)
	}
	kinds := make([]string, len(info.TaskKinds))
	for i, k := range info.TaskKinds {
		kinds[i] = string(k)
	}
	return plugins.Identity{
		Name:        info.Name,
		Version:     info.Version,
		Description: info.Description,
		Shape:       fmt.Sprintf("%s model, serves %s", info.Locality, strings.Join(kinds, ", ")),
		Detail:      info,
	}, nil
}

// Health calls the worker's Health.
func (Adapter) Health(ctx context.Context, raw any) error {
	w, err := asWorker(raw)
	if err != nil {
		return err
	}
	return w.Health(ctx)
}

// Classify maps the SDK's worker errors to outcomes. A rate limit or a
// model that timed out is the model being unavailable for now; a refusal, a
// task over its budget or one the worker does not take will fail the same
// way again; a bad answer, like anything else, is a failure of the plugin.
func (Adapter) Classify(err error) plugins.Outcome {
	switch {
	case errors.Is(err, worker.ErrUnavailable), errors.Is(err, worker.ErrRateLimited), errors.Is(err, worker.ErrTimeout):
		return plugins.Unavailable
	case errors.Is(err, worker.ErrInvalidInput), errors.Is(err, worker.ErrRefused), errors.Is(err, worker.ErrOverBudget):
		return plugins.Rejected
	case errors.Is(err, worker.ErrUnimplemented):
		return plugins.Unimplemented
	default:
		return plugins.Failed
	}
}

// Sentinel answers the worker errors callers match; the specific error
// (worker.ErrRefused, ErrRateLimited, ErrBadAnswer, ...) stays wrapped as
// the call's cause.
func (Adapter) Sentinel(o plugins.Outcome) error {
	switch o {
	case plugins.Rejected:
		return worker.ErrInvalidInput
	case plugins.Unimplemented:
		return worker.ErrUnimplemented
	default:
		return worker.ErrUnavailable
	}
}

func asWorker(raw any) (worker.Worker, error) {
	w, ok := raw.(worker.Worker)
	if !ok {
		return nil, fmt.Errorf("the plugin dispensed %T, not a worker", raw)
	}
	return w, nil
}
