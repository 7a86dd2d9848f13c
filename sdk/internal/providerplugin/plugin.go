package providerplugin

import (
	"context"
	"errors"
	"fmt"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	memhostv1 "github.com/memhost/memhost/sdk/internal/gen/memhost/v1"
	"github.com/memhost/memhost/sdk/internal/registry"
	"github.com/memhost/memhost/sdk/plugin"
)

// Plugin is the go-plugin value of the provider kind. In a plugin process
// Impl is served; in memhost, GRPCClient returns a Provider that calls the
// plugin, passed through Public. Only gRPC is supported.
type Plugin struct {
	goplugin.NetRPCUnsupportedPlugin
	// Impl is the provider served by a plugin process; unused by memhost.
	Impl Provider
	// Logger receives panics recovered from Impl, with stack traces. Nil
	// discards them (the caller still gets a codes.Internal error).
	Logger hclog.Logger
	// Public turns the client into what memhost dispenses (sdk/provider sets
	// it to return a provider.Provider). Nil returns the client as is.
	Public func(Provider) any
}

var _ goplugin.GRPCPlugin = (*Plugin)(nil)

// GRPCServer registers Impl with the plugin's gRPC server.
func (p *Plugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	if p.Impl == nil {
		return errors.New("provider plugin: Impl is nil")
	}
	logger := p.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	memhostv1.RegisterProviderServer(s, &server{impl: p.Impl, logger: logger})
	return nil
}

// GRPCClient returns a Provider backed by the plugin at the other end of c.
func (p *Plugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	cl := &client{rpc: memhostv1.NewProviderClient(c)}
	if p.Public == nil {
		return cl, nil
	}
	return p.Public(cl), nil
}

// Register makes the provider kind known to plugin.VersionedPlugins and to
// providertest. sdk/provider calls it from init with its adapters: local
// turns an implementation of the public interface into this package's
// Provider (false for any other type), public turns the client back into the
// public interface.
func Register(local func(impl any) (Provider, bool), public func(Provider) any) {
	registry.Register(plugin.KindProvider, registry.Kind{
		Client: &Plugin{Public: public},
		Server: func(impl any, logger hclog.Logger) (goplugin.Plugin, error) {
			p, ok := local(impl)
			if !ok {
				return nil, fmt.Errorf("provider plugin: %T does not implement provider.Provider", impl)
			}
			return &Plugin{Impl: p, Logger: logger, Public: public}, nil
		},
	})
}
