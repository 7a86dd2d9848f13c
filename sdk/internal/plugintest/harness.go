package plugintest

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

	"github.com/memhost/memhost/sdk/internal/pluginkind"
	"github.com/memhost/memhost/sdk/plugin"
)

// Serve serves impl as a plugin of kind k over an in-process gRPC connection and returns the
// client side, the T the host would hold. The connection is closed when the test ends.
func Serve[T any](t testing.TB, k *pluginkind.Kind[T], impl T) T {
	t.Helper()
	client, server := goplugin.TestPluginGRPCConn(t, false, map[string]goplugin.Plugin{k.Name(): k.Server(impl, nil)})
	t.Cleanup(func() {
		// Close asks the server to stop through go-plugin's controller service; calling
		// server.Stop as well would race with that.
		_ = client.Close()
		<-server.DoneCh
	})
	return dispense[T](t, client, k.Name())
}

// Start starts the plugin binary at path the way the host does (handshake from sdk/plugin,
// VersionedPlugins, gRPC only, AutoMTLS), so calls cross the same process boundary, TLS and
// adapters as in production, and returns its T and a kill function that stops the process.
// Plugin logs at warn and above go to logTo. What a Go plugin writes to os.Stdout after serving
// (go-plugin carries it over gRPC) goes to stdout; nil discards it.
func Start[T any](k *pluginkind.Kind[T], path string, logTo, stdout io.Writer) (impl T, kill func(), err error) {
	var zero T
	client := goplugin.NewClient(&goplugin.ClientConfig{
		HandshakeConfig:  plugin.Handshake,
		VersionedPlugins: plugin.VersionedPlugins(k),
		AllowedProtocols: []goplugin.Protocol{goplugin.ProtocolGRPC},
		AutoMTLS:         true,
		Cmd:              exec.Command(path),
		Logger:           hclog.New(&hclog.LoggerOptions{Name: "plugin", Output: logTo, Level: hclog.Warn}),
		SyncStdout:       stdout,
	})
	rpc, err := client.Client()
	if err != nil {
		client.Kill()
		return zero, nil, fmt.Errorf("start plugin %s: %w", path, err)
	}
	raw, err := rpc.Dispense(k.Name())
	if err != nil {
		client.Kill()
		return zero, nil, fmt.Errorf("dispense %s from %s: %w", k.Name(), path, err)
	}
	impl, ok := raw.(T)
	if !ok {
		client.Kill()
		return zero, nil, fmt.Errorf("plugin %s dispensed %T, not a %s", path, raw, k.Name())
	}
	return impl, client.Kill, nil
}

// Attach connects to a plugin of kind k served in debug mode at rc, in this process or another
// one, and returns its T. When the test ends it asks the plugin to shut down, which ends the
// plugin's Serve.
func Attach[T any](t testing.TB, k *pluginkind.Kind[T], rc plugin.ReattachConfig) T {
	t.Helper()
	require.NoError(t, rc.Validate())
	reattach := rc.GoPlugin()
	released := make(chan struct{})
	if rc.Pid == os.Getpid() {
		// go-plugin watches an attached process until it exits; this one never will, so the
		// watch ends with the test instead.
		reattach.ReattachFunc = func() (runner.AttachedRunner, error) { return inProcess{released}, nil }
	}
	// Reattaching skips go-plugin's version negotiation, so the plugin set of the version the
	// plugin serves is given directly.
	set, ok := plugin.VersionedPlugins(k)[rc.ProtocolVersion]
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
		// go-plugin's Kill leaves a plugin in debug mode alone; Close asks it to shut down and
		// closes the connection.
		_ = rpc.Close()
		close(released)
	})
	return dispense[T](t, rpc, k.Name())
}

func dispense[T any](t testing.TB, rpc goplugin.ClientProtocol, kind string) T {
	t.Helper()
	raw, err := rpc.Dispense(kind)
	require.NoError(t, err, "dispense %s", kind)
	impl, ok := raw.(T)
	require.True(t, ok, "dispensed %T is not a %s", raw, kind)
	return impl
}

// inProcess stands for a plugin served in the test's own process: nothing to wait for but the
// test's end, nothing to kill, addresses as they are.
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
