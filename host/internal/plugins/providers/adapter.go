package providers

import (
	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/provider"
)

// Adapter teaches the plugin supervisor the provider kind.
type Adapter = plugins.KindAdapter[kind, provider.Provider, provider.Info]

var _ plugins.Adapter = Adapter{}

// kind is what sets providers apart for plugins.KindAdapter.
type kind struct{}

// SDKKind is provider.Kind.
func (kind) SDKKind() plugin.Kind { return provider.Kind }

// Identity: the CLI a provider serves and the command it runs are its identity: a restarted
// process that serves another CLI is refused.
func (kind) Identity(info provider.Info) plugins.Identity {
	return plugins.Identity{Name: info.Name, Version: info.Version, Description: info.Description,
		Shape: "runs " + info.Executable}
}

// Unavailable: only the SDK's unavailable.
func (kind) Unavailable() []error { return nil }

// Rejected: only the SDK's invalid input.
func (kind) Rejected() []error { return nil }
