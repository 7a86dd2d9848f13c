package pluginkind

import (
	"context"

	"github.com/hashicorp/go-hclog"

	"github.com/memhost/memhost/sdk/internal/rpcerr"
)

// Info is a kind's Describe answer, which holds itself to the protocol.
type Info interface {
	Validate() error
}

// Plugin is what every kind's implementation answers besides its own calls: its Info and its
// health.
type Plugin[I Info] interface {
	Describe(ctx context.Context) (I, error)
	Health(ctx context.Context) error
}

// Served is what the gRPC server of a kind whose Describe declares limits holds: the
// implementation, the logger its panics go to, and its first valid Describe, which every
// later call is held to. The kind's server embeds it next to the generated Unimplemented
// server and converts to and from proto around it.
type Served[T Plugin[I], I Info] struct {
	Impl   T
	Logger hclog.Logger

	kind     string
	toStatus func(error) error
	info     Described[I]
}

// NewServed serves impl as a plugin of kind ("embedder"), logging to logger; toStatus maps
// the implementation's errors to the statuses the client reads.
func NewServed[T Plugin[I], I Info](kind string, impl T, logger hclog.Logger, toStatus func(error) error) *Served[T, I] {
	return &Served[T, I]{Impl: impl, Logger: logger, kind: kind, toStatus: toStatus}
}

// Info returns the implementation's Info, asked once (see Described.Get).
func (s *Served[T, I]) Info(ctx context.Context) (I, error) {
	return s.info.Get(ctx, s.Logger, s.kind+" Describe", s.Impl.Describe, s.toStatus)
}

// Healthy asks the implementation's Health (see rpcerr.Health).
func (s *Served[T, I]) Healthy(ctx context.Context) (ok bool, msg string, err error) {
	return rpcerr.Health(ctx, s.Logger, s.kind+" Health", s.Impl.Health)
}
