package pluginkind

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/memhost/memhost/sdk/internal/pluginserve"
	"github.com/memhost/memhost/sdk/plugin"
)

// Kind is the glue of one plugin kind whose public interface is T.
type Kind[T any] struct {
	name     string
	register func(s *grpc.Server, impl T, logger hclog.Logger)
	client   func(c *grpc.ClientConn) T
}

var _ plugin.Kind = (*Kind[any])(nil)

// New declares the kind name. register serves impl as the kind's gRPC
// service on s, sending panics recovered from impl to logger; client returns
// a T that calls the plugin at the other end of c.
func New[T any](name string, register func(s *grpc.Server, impl T, logger hclog.Logger), client func(c *grpc.ClientConn) T) *Kind[T] {
	return &Kind[T]{name: name, register: register, client: client}
}

// Name is the kind's name, e.g. plugin.KindEmbedder.
func (k *Kind[T]) Name() string { return k.name }

// GoPlugin is the host's go-plugin value: it dispenses a T backed by the
// plugin process and serves nothing.
func (k *Kind[T]) GoPlugin() goplugin.Plugin { return &grpcPlugin[T]{kind: k} }

// Server is the plugin process's go-plugin value: it serves impl, sending
// panics recovered from impl to logger (nil discards them). It dispenses a
// T too, which go-plugin's in-process test connection needs.
func (k *Kind[T]) Server(impl T, logger hclog.Logger) pluginserve.GRPCPlugin {
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	return &grpcPlugin[T]{kind: k, impl: impl, serving: true, logger: logger}
}

// Serve runs impl as a plugin of this kind, the whole main of a plugin (see
// pluginserve.Serve); o.Logger defaults to plugin.Logger(name).
func (k *Kind[T]) Serve(impl T, o plugin.ServeOptions) error {
	if isNil(impl) {
		return fmt.Errorf("%s.Serve: impl is nil", k.name)
	}
	if o.Logger == nil {
		o.Logger = plugin.Logger(k.name)
	}
	return pluginserve.Serve(k.name, k.Server(impl, o.Logger), o)
}

// isNil reports whether v, a value of an interface type, holds nothing.
func isNil[T any](v T) bool { return any(v) == nil }

// grpcPlugin is a go-plugin value of a kind; only gRPC is supported.
type grpcPlugin[T any] struct {
	goplugin.NetRPCUnsupportedPlugin
	kind    *Kind[T]
	impl    T
	serving bool
	logger  hclog.Logger
}

var _ pluginserve.GRPCPlugin = (*grpcPlugin[any])(nil)

// GRPCServer registers the implementation with the plugin's gRPC server.
func (p *grpcPlugin[T]) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	if !p.serving || isNil(p.impl) {
		return errors.New(p.kind.name + " plugin: no implementation to serve")
	}
	p.kind.register(s, p.impl, p.logger)
	return nil
}

// GRPCClient returns a T backed by the plugin at the other end of c.
func (p *grpcPlugin[T]) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	return p.kind.client(c), nil
}
