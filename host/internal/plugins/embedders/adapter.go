package embedders

import (
	"context"
	"fmt"

	"github.com/memhost/memhost/host/internal/plugins"
	"github.com/memhost/memhost/sdk/embedder"
	"github.com/memhost/memhost/sdk/plugin"
)

// Adapter teaches the plugin supervisor the embedder kind.
type Adapter = plugins.KindAdapter[kind, embedder.Embedder, embedder.Info]

var _ plugins.Adapter = Adapter{}

// kind is what sets embedders apart for plugins.KindAdapter.
type kind struct{}

// SDKKind is embedder.Kind.
func (kind) SDKKind() plugin.Kind { return embedder.Kind }

// Identity: an embedder's Name and Dimensions define the vector space of stored memories, so
// they are its identity.
func (kind) Identity(info embedder.Info) plugins.Identity {
	return plugins.Identity{Name: info.Name, Version: info.Version, Description: info.Description,
		Shape: fmt.Sprintf("%d dimensions", info.Dimensions)}
}

// Unavailable: a plugin whose own deadline passed (its model did not answer in time) is
// unavailable for now, like one whose model cannot be reached: the health loop, not the next
// write, tells when it answers again.
func (kind) Unavailable() []error { return []error{context.DeadlineExceeded} }

// Rejected: only the SDK's invalid input.
func (kind) Rejected() []error { return nil }
