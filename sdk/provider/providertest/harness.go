package providertest

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"testing"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/hashicorp/go-plugin/runner"
	"github.com/stretchr/testify/require"

	"github.com/memhost/memhost/sdk/internal/registry"
	"github.com/memhost/memhost/sdk/plugin"
	"github.com/memhost/memhost/sdk/provider"
)

// Serve serves impl over an in-process gRPC connection and returns the
// client side, the Provider memhost would hold. The connection is closed
// when the test ends.
func Serve(t testing.TB, impl provider.Provider) provider.Provider {
	t.Helper()
	p, err := registry.Server(plugin.KindProvider, impl, hclog.NewNullLogger())
	require.NoError(t, err)
	client, server := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{plugin.KindProvider: p})
	t.Cleanup(func() {
		// Close asks the server to stop through go-plugin's controller
		// service; calling server.Stop as well would race with that.
		_ = client.Close()
		<-server.DoneCh
	})
	return dispense(t, client)
}

// Launch starts the plugin binary at path the way memhost does (see Start)
// and returns its Provider. The process is killed when the test ends; its
// stderr goes to the test process's stderr.
func Launch(t testing.TB, path string) provider.Provider {
	t.Helper()
	p, kill, err := Start(path, os.Stderr)
	require.NoError(t, err)
	t.Cleanup(kill)
	return p
}

// Start starts the plugin binary at path the way memhost does (handshake
// from sdk/plugin, VersionedPlugins, gRPC only, AutoMTLS) and returns its
// Provider and a kill function. Plugin logs at warn and above go to logTo.
// For harnesses outside tests (benchmarks, tools).
func Start(path string, logTo io.Writer) (p provider.Provider, kill func(), err error) {
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  plugin.Handshake,
		VersionedPlugins: plugin.VersionedPlugins(),
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		AutoMTLS:         true,
		Cmd:              exec.Command(path),
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: logTo, Level: hclog.Warn}),
	})
	rpc, err := client.Client()
	if err != nil {
		client.Kill()
		return nil, nil, fmt.Errorf("start plugin %s: %w", path, err)
	}
	raw, err := rpc.Dispense(plugin.KindProvider)
	if err != nil {
		client.Kill()
		return nil, nil, fmt.Errorf("dispense provider from %s: %w", path, err)
	}
	p, ok := raw.(provider.Provider)
	if !ok {
		client.Kill()
		return nil, nil, fmt.Errorf("plugin %s dispensed %T, not a provider.Provider", path, raw)
	}
	return p, client.Kill, nil
}

// Attach connects to a provider plugin served in debug mode
// (provider.WithDebug) at rc, in this process or another one, and returns
// its Provider. When the test ends it asks the plugin to shut down.
func Attach(t testing.TB, rc plugin.ReattachConfig) provider.Provider {
	t.Helper()
	require.NoError(t, rc.Validate())
	reattach := rc.GoPlugin()
	released := make(chan struct{})
	if rc.Pid == os.Getpid() {
		// go-plugin watches an attached process until it exits; this one
		// never will, so the watch ends with the test instead.
		reattach.ReattachFunc = func() (runner.AttachedRunner, error) { return inProcess{released}, nil }
	}
	// Reattaching skips go-plugin's version negotiation, so the plugin set
	// of the version the plugin serves is given directly.
	set, ok := plugin.VersionedPlugins()[rc.ProtocolVersion]
	require.True(t, ok, "plugin speaks protocol version %d; this SDK speaks %d", rc.ProtocolVersion, plugin.ProtocolVersion)
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  plugin.Handshake,
		Plugins:          set,
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		Reattach:         reattach,
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: os.Stderr, Level: hclog.Warn}),
	})
	rpc, err := client.Client()
	require.NoError(t, err, "attach to plugin at %s", rc.Address)
	t.Cleanup(func() {
		// go-plugin's Kill leaves a plugin in debug mode alone; Close asks
		// it to shut down and closes the connection.
		_ = rpc.Close()
		close(released)
	})
	return dispense(t, rpc)
}

func dispense(t testing.TB, rpc goplugin.ClientProtocol) provider.Provider {
	t.Helper()
	raw, err := rpc.Dispense(plugin.KindProvider)
	require.NoError(t, err, "dispense provider")
	p, ok := raw.(provider.Provider)
	require.True(t, ok, "dispensed %T is not a provider.Provider", raw)
	return p
}

// inProcess stands for a plugin served in the test's own process: nothing
// to wait for but the test's end, nothing to kill, addresses as they are.
type inProcess struct{ released <-chan struct{} }

var _ runner.AttachedRunner = inProcess{}

func (r inProcess) Wait(ctx context.Context) error {
	select {
	case <-r.released:
	case <-ctx.Done():
	}
	return nil
}

func (inProcess) Kill(context.Context) error { return nil }
func (inProcess) ID() string                 { return "in-process" }

func (inProcess) PluginToHost(network, address string) (string, string, error) {
	return network, address, nil
}

func (inProcess) HostToPlugin(network, address string) (string, string, error) {
	return network, address, nil
}
