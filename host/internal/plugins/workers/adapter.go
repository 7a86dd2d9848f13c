package workers

import (
	"fmt"
	"strings"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/worker"
)

// Adapter teaches the plugin supervisor the worker kind.
type Adapter = plugins.KindAdapter[kind, worker.Worker, worker.Info]

var _ plugins.Adapter = Adapter{}

// kind is what sets workers apart for plugins.KindAdapter.
type kind struct{}

// SDKKind is worker.Kind.
func (kind) SDKKind() plugin.Kind { return worker.Kind }

// Identity: the kinds a worker serves and where its model runs are its shape: a restarted
// process that serves other kinds, or moved a local model to a remote one, is refused rather
// than silently sent text it was not chosen for.
func (kind) Identity(info worker.Info) plugins.Identity {
	kinds := make([]string, len(info.TaskKinds))
	for i, k := range info.TaskKinds {
		kinds[i] = string(k)
	}
	return plugins.Identity{Name: info.Name, Version: info.Version, Description: info.Description,
		Shape: fmt.Sprintf("%s model, serves %s", info.Locality, strings.Join(kinds, ", "))}
}

// Unavailable: a rate limit or a model that timed out is the model being unavailable for now.
func (kind) Unavailable() []error { return []error{worker.ErrRateLimited, worker.ErrTimeout} }

// Rejected: a refusal or a task over its budget will fail the same way again. A bad answer,
// like anything else, is a failure of the plugin.
func (kind) Rejected() []error { return []error{worker.ErrRefused, worker.ErrOverBudget} }
