package embedderplugin

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

// Plugin is the go-plugin value of the embedder kind. In a plugin process
// Impl is served; in the host, GRPCClient returns an Embedder that calls the
// plugin, passed through Public. Only gRPC is supported.
type Plugin struct {
	goplugin.NetRPCUnsupportedPlugin
	// Impl is the embedder served by a plugin process; unused by the host.
	Impl Embedder
	// Logger receives panics recovered from Impl, with stack traces. Nil
	// discards them (the caller still gets a codes.Internal error).
	Logger hclog.Logger
	// Public turns the client into what the host dispenses (sdk/embedder
	// sets it to return an embedder.Embedder). Nil returns the client as is.
	Public func(Embedder) any
}

var _ goplugin.GRPCPlugin = (*Plugin)(nil)

// GRPCServer registers Impl with the plugin's gRPC server.
func (p *Plugin) GRPCServer(_ *goplugin.GRPCBroker, s *grpc.Server) error {
	if p.Impl == nil {
		return errors.New("embedder plugin: Impl is nil")
	}
	logger := p.Logger
	if logger == nil {
		logger = hclog.NewNullLogger()
	}
	memhostv1.RegisterEmbedderServer(s, &server{impl: p.Impl, logger: logger})
	return nil
}

// GRPCClient returns an Embedder backed by the plugin at the other end of c.
func (p *Plugin) GRPCClient(_ context.Context, _ *goplugin.GRPCBroker, c *grpc.ClientConn) (any, error) {
	cl := &client{rpc: memhostv1.NewEmbedderClient(c)}
	if p.Public == nil {
		return cl, nil
	}
	return p.Public(cl), nil
}

// Register makes the embedder kind known to plugin.VersionedPlugins (the
// host's client) and to embeddertest (serving an implementation in
// process). sdk/embedder calls it from init with its adapters: local turns
// an implementation of the public interface into this package's Embedder
// (false for any other type), public turns the client back into the public
// interface.
func Register(local func(impl any) (Embedder, bool), public func(Embedder) any) {
	registry.Register(plugin.KindEmbedder, registry.Kind{
		Client: &Plugin{Public: public},
		Server: func(impl any, logger hclog.Logger) (goplugin.Plugin, error) {
			e, ok := local(impl)
			if !ok {
				return nil, fmt.Errorf("embedder plugin: %T does not implement embedder.Embedder", impl)
			}
			return &Plugin{Impl: e, Logger: logger, Public: public}, nil
		},
	})
}
