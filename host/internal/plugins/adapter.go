package plugins

import (
	"context"

	"github.com/memhost/memhost/sdk/plugin"
)

// Adapter teaches the Supervisor one plugin kind. The Supervisor knows processes, not kinds: it
// launches a binary, dispenses the value go-plugin registered for the kind and from then on
// hands that value (raw) to the adapter whenever something kind-specific must happen. An
// adapter is small: who the plugin says it is, whether it is healthy, and what its kind's
// errors mean.
type Adapter interface {
	// Kind is the kind name used in binary file names (memhost-<kind>-<name>) and in the SDK's
	// plugin set: SDKKind().Name().
	Kind() string
	// SDKKind is the SDK's kind (embedder.Kind, say), whose go-plugin value dispenses the raw
	// value the adapter is handed. A process is launched with the plugin set of its kind alone.
	SDKKind() plugin.Kind
	// Identify asks a freshly dispensed plugin who it is. An error fails the launch. Identify
	// runs at every launch, so a restarted process must identify the same way.
	Identify(ctx context.Context, raw any) (Identity, error)
	// Health asks the plugin whether it can serve; nil means yes.
	Health(ctx context.Context, raw any) error
	// Classify says what an error from a call (or from Health) means for the plugin.
	Classify(err error) Outcome
	// Sentinel is the kind's error for outcome o, which callers match with errors.Is (the
	// embedder kind answers embedder.ErrUnavailable for Unavailable and Failed), or nil.
	Sentinel(o Outcome) error
}

// Identity is who a plugin process says it is.
type Identity struct {
	// Name is the name the plugin reports (an embedder's vector space, e.g. "bm25-v1-384"); it
	// is unique per kind and must not change across restarts.
	Name        string
	Version     string
	Description string
	// Shape is what besides Name must not change across restarts, in words, e.g. "384
	// dimensions": a restarted process that reports another Name or Shape is refused.
	Shape string
	// Detail is the kind's own description (an embedder.Info), kept for its adapter.
	Detail any
}

// Outcome is what a failed call means for the plugin and for its caller.
type Outcome int

const (
	// Failed: the plugin failed the call for its own reasons, or answered in breach of its
	// protocol (invalid vectors, say). The plugin is marked unhealthy with the reason until the
	// same method succeeds again; the caller is told the plugin is unavailable.
	Failed Outcome = iota
	// Unavailable: the plugin, or what it fronts, cannot serve right now. A process that is
	// gone is restarted; the caller may retry.
	Unavailable
	// Rejected: the request broke the plugin's rules (its input limits). The plugin is fine and
	// the same request will fail again, so the caller must not retry it.
	Rejected
	// Unimplemented: the plugin does not offer the method. The plugin is fine.
	Unimplemented
)
