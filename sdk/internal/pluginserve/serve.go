package pluginserve

import (
	"fmt"
	"os"
	"sync/atomic"

	goplugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"

	"github.com/memhost/memhost/sdk/plugin"
)

// GRPCPlugin is what a kind serves: a go-plugin value with gRPC support.
type GRPCPlugin interface {
	goplugin.Plugin
	goplugin.GRPCPlugin
}

// Serve serves p as kind until the host shuts the plugin down (or, in debug
// mode, until Options.Debug is done) and then returns nil. It returns an
// error without serving when the process was not launched by a host, and an
// error when go-plugin gave up before serving (its reason is in the log).
func Serve(kind string, p GRPCPlugin, o plugin.ServeOptions) error {
	if o.Debug == nil && os.Getenv(plugin.Handshake.MagicCookieKey) != plugin.Handshake.MagicCookieValue {
		return fmt.Errorf("this program is a memhost %s plugin: the memhost host starts it, it is not meant to be run by hand (to debug it, serve it in debug mode)", kind)
	}
	served := &servedPlugin{GRPCPlugin: p}
	cfg := &goplugin.ServeConfig{
		HandshakeConfig:  plugin.Handshake,
		VersionedPlugins: map[int]goplugin.PluginSet{plugin.ProtocolVersion: {kind: served}},
		// Without GRPCServer go-plugin falls back to net/rpc.
		GRPCServer: goplugin.DefaultGRPCServer,
		Logger:     o.Logger,
	}
	if o.Debug != nil {
		return serveDebug(kind, cfg, served, o)
	}
	goplugin.Serve(cfg)
	return served.err(kind)
}

// serveDebug runs go-plugin's test mode: no cookie check, no handshake on
// stdout, the address goes to o.Ready, and serving ends with o.Debug.
func serveDebug(kind string, cfg *goplugin.ServeConfig, served *servedPlugin, o plugin.ServeOptions) error {
	// Buffered so that go-plugin's send never waits for the reader below.
	reattach := make(chan *goplugin.ReattachConfig, 1)
	closed := make(chan struct{})
	cfg.Test = &goplugin.ServeTestConfig{Context: o.Debug, ReattachConfigCh: reattach, CloseCh: closed}
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		select {
		case rc := <-reattach:
			if o.Ready != nil {
				o.Ready(plugin.ReattachConfig{
					Protocol:        string(rc.Protocol),
					ProtocolVersion: rc.ProtocolVersion,
					Network:         rc.Addr.Network(),
					Address:         rc.Addr.String(),
					Pid:             rc.Pid,
				})
			}
		case <-closed:
		}
	}()
	goplugin.Serve(cfg)
	<-forwarded
	return served.err(kind)
}

// servedPlugin records whether go-plugin got as far as registering the
// kind's service, which is how Serve tells a served-then-stopped plugin from
// one that go-plugin gave up on (it logs the reason and returns either way).
type servedPlugin struct {
	GRPCPlugin
	registered atomic.Bool
}

var _ GRPCPlugin = (*servedPlugin)(nil)

func (s *servedPlugin) GRPCServer(b *goplugin.GRPCBroker, srv *grpc.Server) error {
	if err := s.GRPCPlugin.GRPCServer(b, srv); err != nil {
		return err
	}
	s.registered.Store(true)
	return nil
}

func (s *servedPlugin) err(kind string) error {
	if !s.registered.Load() {
		return fmt.Errorf("serve memhost %s plugin: go-plugin stopped before serving (the log above says why)", kind)
	}
	return nil
}
